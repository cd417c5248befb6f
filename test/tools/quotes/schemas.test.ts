import { describe, expect, it } from 'vitest';
import { toolParameters } from '../../../src/agent/json-schema.js';
import { parseArguments } from '../../../src/agent/registry.js';
import { calcResult, priceResult, tableResult } from '../../../src/tools/quotes/schemas.js';
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
});
