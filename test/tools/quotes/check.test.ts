import { describe, expect, it } from 'vitest';
import { checkCalc, checkPrice, checkTable, statedMarkup } from '../../../src/tools/quotes/check.js';
import { MAX_QUANTITY, MAX_UNIT_PRICE, type PriceResult, type TableResult } from '../../../src/tools/quotes/schemas.js';
import { ToolError } from '../../../src/contract/tool.js';
import { newThreadState } from '../../../src/contract/thread-state.js';
import {
  quoteState,
  saveCalc,
  savePrice,
  saveTable,
  type Offer,
  type PriceDraft,
} from '../../../src/tools/quotes/state.js';
import { calcArgs } from './helpers.js';

const offer = (over: Partial<Offer>): Offer => ({
  supplier: 'Bayside Steel & Alloy',
  sku: 'BSA-1',
  uom: 'sheet',
  price_per_uom: 208.86,
  lead_time_days: 7,
  delivery_cost: 95,
  min_order_qty: 1,
  code: 'SS304-2B-SHEET-0.9-1200X2400',
  family: 'stainless',
  grade: '304',
  form: 'sheet',
  thickness_mm: 0.9,
  size_label: '2400 x 1200 mm',
  ...over,
});

const normalized = {
  family: 'stainless',
  grade: '304',
  thickness_mm: 0.9,
  form: 'sheet' as const,
  qty_uom: 'sheet' as const,
  qty_required: 3,
};

describe('CALC checks', () => {
  it('recomputes each piece’s area from its size and says when the model’s differed', () => {
    const input = structuredClone(calcArgs) as unknown as Parameters<typeof checkCalc>[0];
    input.results.items[1]!.specs!.area_m2 = 0.3;
    const { items, corrections } = checkCalc(input);
    expect(items[1]).toMatchObject({ specs: { area_m2: 0.28 }, total_area_m2: 3.36 });
    expect(corrections).toEqual(['“Side panel 700 × 400”: one piece of 700 × 400 mm is 0.28 m², not 0.3 m².']);
  });
});

describe('PRICE checks', () => {
  const candidate = (over: Partial<PriceResult['candidates'][number]>) => ({
    supplier: 'Bayside Steel & Alloy',
    sku: 'BSA-1',
    uom: 'sheet',
    ...over,
  });

  it('takes price, lead time and delivery from the catalogue and ranks by landed cost', () => {
    const offers = [
      offer({}),
      offer({
        supplier: 'Ironbark Metal Supplies',
        sku: 'IMS-1',
        price_per_uom: 248.99,
        lead_time_days: 1,
        delivery_cost: 45,
        min_order_qty: 4,
      }),
    ];
    const input: PriceResult = {
      normalized,
      candidates: [
        candidate({ sku: 'IMS-1', price_per_uom: 248.99 }),
        candidate({ price_per_uom: 199, lead_time_days: 5 }),
      ],
      questions: [],
    };
    const check = checkPrice(input, offers, true);
    expect(check.candidates.map((c) => [c.sku, c.price_per_uom, c.est_total])).toEqual([
      ['BSA-1', 208.86, 721.58], // 3 × 208.86 + 95
      ['IMS-1', 248.99, 1040.96], // the minimum order of 4 applies: 4 × 248.99 + 45
    ]);
    expect(check.corrections).toEqual([
      'Bayside Steel & Alloy BSA-1: the catalogue price is $208.86 per sheet, not $199.00.',
      'Bayside Steel & Alloy BSA-1: lead time is 7 days, not 5.',
    ]);
  });

  it('reports a SKU no lookup returned and a thickness nobody stocks', () => {
    const input: PriceResult = {
      normalized: { ...normalized, thickness_mm: 0.8 },
      candidates: [
        candidate({ price_per_uom: 208.86 }),
        candidate({ supplier: 'Acme', sku: 'ACME-9', price_per_uom: 99 }),
      ],
      questions: [],
    };
    const check = checkPrice(input, [offer({})], true);
    expect(check.candidates.find((c) => c.sku === 'ACME-9')).toEqual({
      supplier: 'Acme',
      sku: 'ACME-9',
      uom: 'sheet',
      verified: false,
    });
    expect(check.missing).toEqual([
      'Acme ACME-9: not in the catalogue results, so no price is shown.',
      'No catalogue price for 0.8 mm; the prices shown are for 0.9 mm.',
    ]);
    expect(check.candidates[0]?.notes).toBe('0.9 mm, not 0.8 mm');
  });

  it('asks a question when nothing was priced and none was asked', () => {
    expect(checkPrice({ candidates: [], questions: [] }, [], false).questions[0]).toMatch(/^What should I price\?/);
    expect(checkPrice({ candidates: [], questions: [] }, [], true).questions[0]).toBe(
      'Which of the calculated materials should I price?',
    );
    expect(checkPrice({ normalized, candidates: [], questions: [] }, [], true).questions[0]).toMatch(
      /^I found no supplier prices for 304 stainless sheet, 0\.9 mm\./,
    );
  });
});

describe('TABLE checks', () => {
  const table = (over: Partial<TableResult['totals']>, rows: TableResult['rows']): TableResult => ({
    rows,
    totals: { material: 0, labour: 0, freight: 0, overheads: 0, markup_pct: 0, grand_total_ex_gst: 0, ...over },
    markdown: '',
    questions: [],
  });

  it('accepts correct figures (cent rounding included) without corrections', () => {
    const input = table(
      { material: 626.58, labour: 380, freight: 95, overheads: 50, markup_pct: 20, grand_total_ex_gst: 1381.9 },
      [{ item: 'Sheet', qty: 3, uom: 'sheet', unit_cost: 208.86, subtotal: 626.58 }],
    );
    // (626.58 + 380 + 95 + 50) × 1.2 = 1381.896 → 1381.90
    const check = checkTable(input, [208.86]);
    expect(check.corrections).toEqual([]);
    expect(check.missing).toEqual([]);
    expect(check.totals).toEqual({
      material: 626.58,
      labour: 380,
      freight: 95,
      overheads: 50,
      markup_pct: 20,
      markup: 230.32,
      grand_total_ex_gst: 1381.9,
    });
  });

  it('sums in cents, so many small lines do not drift', () => {
    const rows = Array.from({ length: 10 }, (_, i) => ({
      item: `Bolt ${i}`,
      qty: 3,
      uom: 'each',
      unit_cost: 0.1,
      subtotal: 0.3,
    }));
    const check = checkTable(table({ material: 3, grand_total_ex_gst: 3 }, rows), []);
    expect(check.totals.material).toBe(3);
    expect(check.corrections).toEqual([]);
  });

  it('flags a unit cost that no supplier price in the thread backs', () => {
    const check = checkTable(
      table({ material: 300, grand_total_ex_gst: 300 }, [
        { item: 'Sheet', qty: 3, uom: 'sheet', unit_cost: 100, subtotal: 300 },
      ]),
      [208.86],
    );
    expect(check.missing).toEqual([
      '“Sheet”: the unit cost $100.00 is not one of the supplier prices found in this thread; check it.',
    ]);
  });

  it('keeps totals at the input bounds finite, and refuses a total past any quote instead of showing "$∞"', () => {
    const row = (qty: number, unit_cost: number, i = 0) => ({ item: `Line ${i}`, qty, uom: 'each', unit_cost });
    // Sixty lines each within the bounds: ten billion dollars a line is a valid row…
    const one = checkTable(table({ material: 1e10, grand_total_ex_gst: 1e10 }, [row(1e4, 1e6)]), []);
    expect(one.totals.grand_total_ex_gst).toBe(1e10);
    // …but sixty of them with a 500% markup pass any sane quote: a fixable error, no total shown.
    const many = table(
      { markup_pct: 500 },
      Array.from({ length: 60 }, (_, i) => row(MAX_QUANTITY, MAX_UNIT_PRICE, i)),
    );
    expect(() => checkTable(many, [])).toThrow(ToolError);
    expect(() => checkTable(many, [])).toThrow(
      /^Invalid quote: the row “Line 0” \(qty × unit_cost\) would be over \$10,000,000,000,000\.00, more than any quote can be/,
    );
    const rows = Array.from({ length: 60 }, (_, i) => row(1e6, 1e6, i));
    expect(() => checkTable(table({}, rows), [])).toThrow(/the material total \(the sum of the rows\) would be over/);
    expect(() => checkTable(table({ markup_pct: 500 }, rows.slice(0, 5)), [])).toThrow(/the grand total would be over/);
    // What the old code did with qty 1e308 (the schema refuses it now): never a total of Infinity.
    expect(() => checkTable(table({}, [row(1e308, 50)]), [])).toThrow(ToolError);
  });

  it('reads a markup stated in words', () => {
    expect(statedMarkup('quote table, 20% markup')).toBe(20);
    expect(statedMarkup('with a mark-up of 12.5 %')).toBe(12.5);
    expect(statedMarkup('markup: 15%')).toBe(15);
    expect(statedMarkup('10% discount, add freight')).toBeUndefined();
  });
});

describe('the thread’s quote draft', () => {
  it('keeps one pricing per material and drops what a newer step makes stale', () => {
    const state = newThreadState('t');
    const at = '2026-11-21T12:00:00Z';
    const price = (thickness_mm: number): PriceDraft => ({
      request: '',
      normalized: { ...normalized, thickness_mm },
      candidates: [],
      questions: [],
      corrections: [],
      missing: [],
      at,
    });
    saveCalc(state, { request: 'boxes', items: [], assumptions: '', questions: [], corrections: [], at });
    savePrice(state, price(0.9));
    savePrice(state, price(1.2));
    savePrice(state, price(0.9));
    expect(quoteState(state).prices.map((p) => p.normalized?.thickness_mm)).toEqual([1.2, 0.9]);
    saveTable(state, {
      request: '',
      rows: [],
      totals: { material: 0, labour: 0, freight: 0, overheads: 0, markup_pct: 0, markup: 0, grand_total_ex_gst: 0 },
      questions: [],
      corrections: [],
      missing: [],
      at,
    });
    savePrice(state, price(1.5));
    expect(quoteState(state).table).toBeUndefined();
    saveCalc(state, { request: 'trays', items: [], assumptions: '', questions: [], corrections: [], at });
    expect(quoteState(state).prices).toEqual([]);
    expect(state.tools.quotes).toMatchObject({ calc: { request: 'trays' } });
  });
});
