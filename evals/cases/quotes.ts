import { defineCases } from '../case.js';

/**
 * The quote modes (seed 002: emit tools): CALC, PRICE and TABLE each end with their emit tool's
 * validated arguments; PRICE searches the demo sheet-metal catalogue (src/data/demo/products.ts:
 * four suppliers, AUD ex GST) first. Prices come only from the pricing tools, never the model.
 */
const SUPPLIER = /Southern Cross Metals|Bayside Steel|Ironbark Metal|Coastline Aluminium/i;

export default defineCases('quotes', [
  {
    id: 'quotes/calc-boxes',
    tenant: 'default',
    question: '/quote calc 3 stainless steel boxes, 700×700×400mm, 0.8mm thick, open top',
    tools: { must: ['emit_calc_result'], mustNot: ['web_search', 'get_pricing_for_material'] },
    facts: { must: [/700/, /0\.8/] },
    maxTokens: 10_000,
    note: 'The design note’s CALC test: the emit tool carries the items and the assumptions.',
  },
  {
    id: 'quotes/calc-from-conversation',
    tenant: 'default',
    question: 'Can you work out the flat sheet I need for a 500 x 300 x 200 mm open-top aluminium tray, 1.6 mm?',
    tools: { must: [{ tool: 'start_quote', args: { mode: 'calc' } }, 'emit_calc_result'] },
    facts: { must: [/500/, /300/] },
    maxTokens: 12_000,
    note: 'Plain conversation enters the quote through start_quote (terminal), and the same turn runs CALC.',
  },
  {
    id: 'quotes/price-304-sheet',
    tenant: 'default',
    question: '/quote price 304 stainless sheet, 1.2 mm, 2400 x 1200, 5 sheets',
    tools: {
      must: [
        {
          tool: ['get_pricing_for_material', 'compare_suppliers', 'search_products'],
          args: { grade: '304' },
        },
        'emit_price_result',
      ],
      mustNot: ['web_search'],
    },
    facts: { must: [SUPPLIER, /\$\s?\d/] },
    maxTokens: 14_000,
    note: 'PRICE searches, then emits candidates with supplier, SKU and price per unit from the catalogue.',
  },
  {
    id: 'quotes/price-cheapest-supplier',
    tenant: 'default',
    question: '/quote price 10 sheets of 3 mm 5052 aluminium, who is cheapest delivered?',
    tools: {
      must: [
        { tool: ['compare_suppliers', 'get_pricing_for_material'], args: { family: /alumin/i } },
        'emit_price_result',
      ],
    },
    facts: { must: [/Coastline Aluminium|Southern Cross Metals/i] },
    maxTokens: 14_000,
    note: 'Only two suppliers carry aluminium: the answer names one of them, never Ironbark or Bayside.',
  },
  {
    id: 'quotes/price-no-invented-price',
    tenant: 'default',
    question: '/quote price titanium grade 5 sheet, 2 mm',
    tools: { must: ['emit_price_result'], mustNot: ['web_search'] },
    facts: { mustNot: [/titanium[^\n]{0,80}\$\s?\d/i] },
    maxTokens: 12_000,
    note: 'Not in the catalogue: the price is reported missing, not invented.',
  },
  {
    id: 'quotes/table-after-price',
    tenant: 'default',
    before: ['/quote price 304 stainless sheet, 1.2 mm, 2400 x 1200, 5 sheets'],
    question: '/quote table make the quote table for those 5 sheets with 20% markup',
    tools: { must: ['emit_table_result'] },
    facts: { must: [/20\s?%/, /total/i] },
    maxTokens: 14_000,
    note: 'TABLE builds on the thread’s PRICE step: the rows come from the previous candidates.',
  },
  {
    id: 'quotes/not-a-quote',
    tenant: 'default',
    question: 'What does “ex GST” mean on a supplier quote?',
    tools: { mustNot: ['start_quote', 'emit_calc_result', 'emit_price_result', 'emit_table_result'] },
    facts: { must: [/GST|goods and services tax|excluding/i] },
    maxTokens: 5_000,
    note: 'A question about quoting is not a quote: no mode is started.',
  },
]);
