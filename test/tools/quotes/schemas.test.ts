import { describe, expect, it } from 'vitest';
import { toolParameters } from '../../../src/agent/json-schema.js';
import { parseArguments } from '../../../src/agent/registry.js';
import {
  calcResult,
  MAX_QUANTITY,
  MAX_QUOTE_TOTAL,
  MAX_UNIT_PRICE,
  priceResult,
  tableResult,
} from '../../../src/tools/quotes/schemas.js';
import { geminiViolations, openAiStrictViolations } from '../../helpers/schema-rules.js';
import { calcArgs, quoteTools } from './helpers.js';

describe('quote tool schemas', () => {
  const { tools } = quoteTools();

  it.each(tools.map((t) => [t.name, t] as const))(
    '%s passes the OpenAI strict-mode and Gemini rules',
    (_name, tool) => {
      expect(openAiStrictViolations(toolParameters(tool.input, 'openai'))).toEqual([]);
      expect(geminiViolations(toolParameters(tool.input, 'gemini'))).toEqual([]);
    },
  );

  it('keeps the design note’s required fields and question limits in the exported schema', () => {
    const gemini = (s: Parameters<typeof toolParameters>[0]) =>
      toolParameters(s, 'gemini') as { required: string[]; properties: Record<string, { maxItems?: number }> };
    expect(gemini(calcResult).required).toEqual(['inputs', 'results', 'questions']);
    expect(gemini(priceResult).required).toEqual(['candidates', 'questions']);
    expect(gemini(tableResult).required).toEqual(['rows', 'totals', 'markdown', 'questions']);
    expect(gemini(calcResult).properties.questions?.maxItems).toBe(3);
    expect(gemini(priceResult).properties.questions?.maxItems).toBe(3);
    expect(gemini(tableResult).properties.questions?.maxItems).toBe(1);
  });

  it('turns too many questions, non-positive quantities and missing fields into fixable errors', () => {
    const tooMany = parseArguments(JSON.stringify({ ...calcArgs, questions: ['a', 'b', 'c', 'd'] }), calcResult);
    expect(tooMany).toEqual({ ok: false, error: expect.stringMatching(/questions: ask at most 3 questions/) });
    const table = {
      rows: [],
      totals: { material: 0, labour: 0, freight: 0, overheads: 0, markup_pct: 0, grand_total_ex_gst: 0 },
      markdown: '',
      questions: ['a', 'b'],
    };
    expect(parseArguments(JSON.stringify(table), tableResult)).toEqual({
      ok: false,
      error: expect.stringMatching(/questions: ask at most 1 question;/),
    });
    const zeroQty = structuredClone(calcArgs);
    zeroQty.results.items[0]!.quantity = 0;
    expect(parseArguments(JSON.stringify(zeroQty), calcResult)).toEqual({
      ok: false,
      error: expect.stringMatching(/results\.items\.0\.quantity: quantity must be greater than 0/),
    });
    const { normalized: _n, ...noCandidates } = { normalized: null, questions: [] };
    expect(parseArguments(JSON.stringify(noCandidates), priceResult)).toEqual({
      ok: false,
      error: expect.stringMatching(/candidates: /),
    });
    // Strict mode sends null for "not given": a missing price is null, not a guess.
    const unpriced = {
      normalized: null,
      candidates: [
        {
          supplier: 'A',
          sku: 'X',
          uom: 'sheet',
          price_per_uom: null,
          lead_time_days: null,
          delivery: null,
          notes: null,
        },
      ],
      questions: [],
    };
    expect(parseArguments(JSON.stringify(unpriced), priceResult)).toMatchObject({
      ok: true,
      value: { candidates: [{ sku: 'X' }] },
    });
  });

  it('bounds quantities, prices, dimensions and amounts, so no figure computed from them overflows', () => {
    const row = { item: 'Sheet', qty: 3, uom: 'sheet', unit_cost: 208.86, subtotal: 626.58, notes: null };
    const totals = { material: 626.58, labour: 0, freight: 0, overheads: 0, markup_pct: 0, grand_total_ex_gst: 626.58 };
    const table = (r: object, t: object = {}) =>
      parseArguments(
        JSON.stringify({ rows: [{ ...row, ...r }], totals: { ...totals, ...t }, markdown: '', questions: [] }),
        tableResult,
      );
    expect(table({})).toMatchObject({ ok: true });
    expect(table({ qty: MAX_QUANTITY, unit_cost: MAX_UNIT_PRICE, subtotal: null })).toMatchObject({ ok: true });
    expect(table({ qty: 1e308 })).toEqual({
      ok: false,
      error: 'Invalid arguments: rows.0.qty: qty must be at most 1,000,000,000 (the count for the whole job)',
    });
    expect(table({ unit_cost: 1e12 })).toEqual({
      ok: false,
      error: expect.stringMatching(/rows\.0\.unit_cost: unit_cost must be at most 1,000,000,000 per unit/),
    });
    expect(table({ subtotal: 1e308 })).toEqual({ ok: false, error: expect.stringMatching(/rows\.0\.subtotal: /) });
    // 1e309 is Infinity once parsed: refused, not totalled.
    expect(
      parseArguments(
        JSON.stringify({ rows: [row], totals, markdown: '', questions: [] }).replace('"qty":3', '"qty":1e309'),
        tableResult,
      ),
    ).toMatchObject({ ok: false, error: expect.stringMatching(/rows\.0\.qty: /) });
    expect(table({}, { labour: 1e308 })).toEqual({
      ok: false,
      error: expect.stringMatching(/totals\.labour: labour must be at most 10,000,000,000,000/),
    });
    expect(MAX_QUOTE_TOTAL).toBe(1e13);

    const calc = structuredClone(calcArgs);
    calc.results.items[0]!.quantity = 1e308;
    expect(parseArguments(JSON.stringify(calc), calcResult)).toEqual({
      ok: false,
      error: expect.stringMatching(/results\.items\.0\.quantity: quantity must be at most 1,000,000,000/),
    });
    const wide = structuredClone(calcArgs) as { results: { items: { specs?: { width_mm?: number } }[] } };
    wide.results.items[0]!.specs = { ...wide.results.items[0]!.specs, width_mm: 1e308 };
    expect(parseArguments(JSON.stringify(wide), calcResult)).toEqual({
      ok: false,
      error: expect.stringMatching(/results\.items\.0\.specs\.width_mm: width_mm must be at most 1,000,000 mm/),
    });
    const price = (over: object) =>
      parseArguments(
        JSON.stringify({
          normalized: {
            family: 'stainless',
            grade: '304',
            thickness_mm: 0.9,
            form: 'sheet',
            qty_uom: 'sheet',
            qty_required: 3,
            ...over,
          },
          candidates: [],
          questions: [],
        }),
        priceResult,
      );
    expect(price({})).toMatchObject({ ok: true });
    expect(price({ qty_required: 1e308 })).toEqual({
      ok: false,
      error: expect.stringMatching(/normalized\.qty_required: qty_required must be at most 1,000,000,000/),
    });
  });
});
