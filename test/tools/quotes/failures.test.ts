import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.js';
import { collect, message, replyOf, type Harness } from '../../helpers/harness.js';
import {
  BOX_REQUEST,
  boxOffers,
  buttonsOf,
  calcArgs,
  cents,
  cheapest,
  click,
  doneOf,
  PRICE_REQUEST,
  priceArgs,
  pricingCall,
  quoteCommand,
  requestView,
  startQuoteHarness,
  tableArgs,
  tableOf,
} from './helpers.js';
import { unfence } from '../../helpers/fence.js';

/** What goes wrong in a quote step, and what the user sees then. */

let llm: FakeOpenAI;
let h: Harness;
let thread = 0;
const nextThread = () => `quote-fail-${++thread}`;
const chatRequests = () => llm.requestsTo('/chat/completions').map((r) => requestView(r.body));

beforeAll(async () => {
  llm = await startFakeOpenAI();
  h = await startQuoteHarness(llm);
});
afterAll(async () => {
  await h.close();
  await llm.close();
});
beforeEach(() => llm.reset());

/** A thread whose PRICE step is done (prices at 0.9 mm from the real catalogue). */
async function pricedThread(threadId: string) {
  const offers = await boxOffers(h);
  llm.script(
    { toolCalls: [pricingCall(0.9)] },
    { toolCalls: [{ name: 'emit_price_result', arguments: priceArgs(offers) }] },
  );
  await collect(
    h.sb.agent.handle(quoteCommand('price', '3 sheets of 304 stainless 0.8 mm, 1200 × 2400', { threadId })),
  );
  llm.reset();
  return cheapest(offers);
}

describe('quote step failures', () => {
  it('sends an emit with a missing required field back to the model and takes the corrected emit', async () => {
    const { results: _missing, ...withoutResults } = calcArgs;
    llm.script(
      { toolCalls: [{ name: 'emit_calc_result', arguments: withoutResults }] },
      { toolCalls: [{ name: 'emit_calc_result', arguments: calcArgs }] },
    );
    const events = await collect(h.sb.agent.handle(quoteCommand('calc', BOX_REQUEST, { threadId: nextThread() })));
    const [, second] = chatRequests();
    expect(second!.last).toMatchObject({ role: 'tool' });
    expect(unfence(second!.last!.content)).toMatch(/^Error: Invalid arguments: results: /);
    expect(replyOf(events)?.text).toMatch(/^\*\*Calculation\*\*.*3 items/);
    expect(doneOf(events).toolCalls.map((c) => c.ok)).toEqual([false, true]);
  });

  it('rejects more than 3 questions; a question keeps the mode and the answer continues it', async () => {
    const threadId = nextThread();
    const ask = (questions: string[]) => ({ ...calcArgs, results: { items: [], assumptions: '' }, questions });
    llm.script(
      { toolCalls: [{ name: 'emit_calc_result', arguments: ask(['Grade?', 'Finish?', 'Lid?', 'Welded or folded?']) }] },
      { toolCalls: [{ name: 'emit_calc_result', arguments: ask(['Which grade of stainless: 304 or 316?']) }] },
    );
    const asked = await collect(h.sb.agent.handle(quoteCommand('calc', '3 stainless boxes 700×700×400', { threadId })));
    expect(chatRequests()[1]!.last?.content).toMatch(/questions: ask at most 3 questions/);
    expect(replyOf(asked)?.text).toContain('One question before I finish:\n1. Which grade of stainless: 304 or 316?');
    expect(buttonsOf(replyOf(asked)).map((b) => b.actionId)).toEqual(['quotes.cancel']);

    llm.reset();
    llm.script({ toolCalls: [{ name: 'emit_calc_result', arguments: calcArgs }] });
    const answered = await collect(h.sb.agent.handle(message('304 please', { threadId })));
    const [continued] = chatRequests();
    expect(continued!.tools).toEqual(['emit_calc_result']);
    expect(continued!.system).toContain('You asked the user:\n1. Which grade of stainless: 304 or 316?');
    expect(continued!.system).toContain('The request: 3 stainless boxes 700×700×400');
    expect(replyOf(answered)?.text).toMatch(/^\*\*Calculation\*\* for “3 stainless boxes 700×700×400”: 3 items\./);
    expect(buttonsOf(replyOf(answered))[0]?.actionId).toBe('quotes.price');

    // Answered and finished: the next message is conversation again.
    llm.reset();
    llm.script({ text: 'ok' });
    await collect(h.sb.agent.handle(message('great', { threadId })));
    expect(chatRequests()[0]!.tools).toContain('start_quote');
  });

  it('nudges a model that never emits once, then says so clearly and keeps what it gathered', async () => {
    const threadId = nextThread();
    llm.script(
      { toolCalls: [pricingCall(0.9)] },
      { text: 'Bayside is cheapest at about $209 a sheet.' },
      { text: 'As I said, Bayside is cheapest.' },
    );
    const events = await collect(
      h.sb.agent.handle(quoteCommand('price', '3 sheets of 304 stainless, 0.9 mm, 1200 × 2400', { threadId })),
    );
    const requests = chatRequests();
    expect(requests).toHaveLength(3);
    expect(requests[2]!.last).toEqual({
      role: 'user',
      content: 'Please call the emit_price_result tool with your final results.',
    });
    const reply = replyOf(events);
    expect(reply?.text).toMatch(
      /^I couldn’t finish the price list this time: no complete result came back for me to check\. The 6 supplier prices I looked up are kept in this thread\./,
    );
    expect(reply?.text).not.toContain('$209');
    const [retry] = buttonsOf(reply);
    expect(retry).toMatchObject({
      actionId: 'quotes.price',
      label: 'Try again',
      value: '3 sheets of 304 stainless, 0.9 mm, 1200 × 2400',
    });
    expect(h.logs.lines.some((l) => l.msg === 'quote step ended without a result' && l.step === 'price')).toBe(true);

    // The thread left the mode, and a retry starts from what was gathered.
    llm.reset();
    const offers = await boxOffers(h);
    llm.script({ toolCalls: [{ name: 'emit_price_result', arguments: priceArgs(offers) }] });
    const again = await collect(h.sb.agent.handle(click(retry!, { threadId })));
    const [first] = chatRequests();
    expect(first!.system).toMatch(
      /Catalogue prices already looked up in this thread[\s\S]*BSA-SS304-2B-SHEET-0\.9-1200X2400/,
    );
    expect(
      first!.messages.some((m) => m.role === 'tool' && String(m.content).includes('BSA-SS304-2B-SHEET-0.9-1200X2400')),
    ).toBe(true);
    expect(tableOf(replyOf(again)).rows).toHaveLength(offers.length);
  });

  it('recomputes wrong arithmetic and prices, shows the right figures and says what it corrected', async () => {
    const threadId = nextThread();
    const offers = await boxOffers(h);
    const best = cheapest(offers);
    // PRICE: the model rounds one supplier's price.
    llm.script(
      { toolCalls: [pricingCall(0.9)] },
      {
        toolCalls: [
          {
            name: 'emit_price_result',
            arguments: priceArgs(offers, { price: (o) => (o.sku === best.sku ? 200 : o.price_per_uom) }),
          },
        ],
      },
    );
    const price = await collect(
      h.sb.agent.handle(quoteCommand('price', '3 sheets of 304 stainless, 0.9 mm', { threadId })),
    );
    expect(replyOf(price)?.text).toContain(
      `${best.supplier} ${best.sku}: the catalogue price is $${best.price_per_uom.toFixed(2)} per sheet, not $200.00.`,
    );
    expect(tableOf(replyOf(price)).rows[0]?.[3]).toBe(`$${best.price_per_uom.toFixed(2)}`);

    // TABLE: wrong subtotal, wrong material sum, wrong grand total, and not the markup asked for.
    llm.reset();
    llm.script({
      toolCalls: [
        {
          name: 'emit_table_result',
          arguments: tableArgs(best, { subtotal: 600, material: 600, grand: 700, markup: 15 }),
        },
      ],
    });
    const table = await collect(
      h.sb.agent.handle(quoteCommand('table', 'Create a quote table with the pricing, 10% markup', { threadId })),
    );
    const subtotal = cents(3 * best.price_per_uom);
    const costs = cents(subtotal + best.delivery_cost);
    const grand = cents(costs * 1.1);
    const text = replyOf(table)?.text ?? '';
    expect(text).toContain('I checked the figures and corrected:');
    expect(text).toContain(`3 × $${best.price_per_uom.toFixed(2)} = $${subtotal.toFixed(2)}, not $600.00.`);
    expect(text).toContain(`Material: the rows add up to $${subtotal.toFixed(2)}, not $600.00.`);
    expect(text).toContain('Markup: you asked for 10%, so I applied 10% instead of 15%.');
    expect(text).toContain(
      `Grand total ex GST: ($${subtotal.toFixed(2)} + $0.00 + $${best.delivery_cost.toFixed(2)} + $0.00) × 1.1 = $${grand.toFixed(2)}, not $700.00.`,
    );
    const rows = tableOf(replyOf(table)).rows;
    expect(rows[0]?.[4]).toBe(`$${subtotal.toFixed(2)}`);
    expect(rows.find((r) => r[0] === 'Markup (10%)')?.[4]).toBe(`$${cents(grand - costs).toFixed(2)}`);
    expect(rows.at(-1)?.[4]).toBe(`$${grand.toFixed(2)}`);
    expect(doneOf(table).data).toMatchObject({
      quote: { totals: { material: subtotal, markup_pct: 10, grand_total_ex_gst: grand } },
    });
  });

  it('never invents a missing price: unknown SKUs and unpriced rows are reported, not totalled', async () => {
    const threadId = nextThread();
    const best = await pricedThread(threadId);
    const invented = {
      ...priceArgs([]),
      candidates: [
        {
          supplier: 'Acme Metals',
          sku: 'ACME-304-08',
          uom: 'sheet',
          price_per_uom: 150,
          lead_time_days: 2,
          delivery: 40,
        },
      ],
    };
    llm.script({ toolCalls: [{ name: 'emit_price_result', arguments: invented }] });
    const price = await collect(
      h.sb.agent.handle(quoteCommand('price', '304 stainless 0.8 mm from Acme', { threadId })),
    );
    expect(replyOf(price)?.text).toContain(
      'Acme Metals ACME-304-08: not in the catalogue results, so no price is shown.',
    );
    expect(tableOf(replyOf(price)).rows[0]?.[3]).toBe('no price');
    expect(buttonsOf(replyOf(price))).toEqual([]);

    llm.reset();
    const args = tableArgs(best);
    args.rows.push({
      item: 'Stainless lid, 0.8 mm',
      qty: 3,
      uom: 'each',
      unit_cost: null as unknown as number,
      subtotal: null as unknown as number,
      notes: '',
    });
    llm.script({ toolCalls: [{ name: 'emit_table_result', arguments: args }] });
    const table = await collect(
      h.sb.agent.handle(quoteCommand('table', 'Quote table with a lid per box', { threadId })),
    );
    expect(replyOf(table)?.text).toContain(
      '“Stainless lid, 0.8 mm”: no price was found, so it is left out of the totals.',
    );
    const rows = tableOf(replyOf(table)).rows;
    expect(rows[1]).toEqual(['Stainless lid, 0.8 mm', '3', 'each', 'no price', '—', '']);
    expect(rows.at(-1)?.[4]).toBe(`$${cents(3 * best.price_per_uom + best.delivery_cost).toFixed(2)}`);
  });
});

describe('quote figures past any real quote', () => {
  it('sends qty 1e308 back to the model as a fixable error and never shows the user "$∞"', async () => {
    const threadId = nextThread();
    const best = await pricedThread(threadId);
    const huge = tableArgs(best);
    huge.rows[0]!.qty = 1e308;
    huge.rows[0]!.subtotal = 1e308;
    llm.script(
      { toolCalls: [{ name: 'emit_table_result', arguments: huge }] },
      { toolCalls: [{ name: 'emit_table_result', arguments: tableArgs(best) }] },
    );
    const table = await collect(h.sb.agent.handle(quoteCommand('table', 'Quote table', { threadId })));
    expect(unfence(chatRequests()[1]!.last!.content)).toMatch(
      /^Error: Invalid arguments: rows\.0\.qty: qty must be at most 1,000,000,000/,
    );
    const text = JSON.stringify(replyOf(table));
    expect(text).not.toContain('∞');
    expect(tableOf(replyOf(table)).rows.at(-1)?.[4]).toBe(
      `$${cents(3 * best.price_per_uom + best.delivery_cost).toFixed(2)}`,
    );
    expect(doneOf(table).toolCalls.map((c) => c.ok)).toEqual([false, true]);
  });
});

describe('PRICE without a previous calculation', () => {
  it('asks what to price without calling the model when /quote price has no request', async () => {
    const threadId = nextThread();
    const events = await collect(h.sb.agent.handle(quoteCommand('price', '', { threadId })));
    expect(llm.requestsTo('/chat/completions')).toHaveLength(0);
    expect(replyOf(events)?.text).toMatch(
      /^What should I price\? Tell me the material, grade, thickness, form and quantity/,
    );

    // The answer runs PRICE with its tools.
    const offers = await boxOffers(h);
    llm.script(
      { toolCalls: [pricingCall(0.9)] },
      { toolCalls: [{ name: 'emit_price_result', arguments: priceArgs(offers) }] },
    );
    const answered = await collect(h.sb.agent.handle(message('3 sheets of 304, 0.9 mm, 1200 × 2400', { threadId })));
    const [first] = chatRequests();
    expect(first!.tools).toContain('get_pricing_for_material');
    expect(first!.system).toContain('What should I price?');
    expect(tableOf(replyOf(answered)).rows).toHaveLength(offers.length);
  });

  it('asks what to price when the model finds nothing to price "from the previous calculation"', async () => {
    const threadId = nextThread();
    llm.script({
      toolCalls: [{ name: 'emit_price_result', arguments: { normalized: null, candidates: [], questions: [] } }],
    });
    const events = await collect(h.sb.agent.handle(quoteCommand('price', PRICE_REQUEST, { threadId })));
    const [first] = chatRequests();
    expect(first!.system).toContain('There is no previous calculation in this thread.');
    const reply = replyOf(events);
    expect(reply?.text).toContain('**Pricing**: I need more information before I can price anything.');
    expect(reply?.text).toMatch(/1\. What should I price\?/);
    const [cancel] = buttonsOf(reply);
    expect(cancel).toMatchObject({ actionId: 'quotes.cancel', label: 'Cancel the quote' });

    // Still in PRICE: the answer continues it.
    llm.reset();
    llm.script(
      { text: 'Looking…' },
      {
        toolCalls: [
          {
            name: 'emit_price_result',
            arguments: { normalized: null, candidates: [], questions: ['Which thickness?'] },
          },
        ],
      },
    );
    await collect(h.sb.agent.handle(message('304 sheet', { threadId })));
    expect(chatRequests()[0]!.tools).toContain('emit_price_result');

    // Cancel is the way out of a step that keeps asking: no model call, and the thread is conversation again.
    llm.reset();
    const cancelled = await collect(h.sb.agent.handle(click(cancel!, { threadId })));
    expect(replyOf(cancelled)?.text).toMatch(/^OK, I’ve stopped the quote\./);
    expect(llm.requestsTo('/chat/completions')).toHaveLength(0);
    llm.script({ text: 'ok' });
    await collect(h.sb.agent.handle(message('what else can you do?', { threadId })));
    expect(chatRequests()[0]!.tools).toContain('start_quote');
  });

  it('answers /quote with an unknown mode with the usage, without the model', async () => {
    const events = await collect(h.sb.agent.handle(quoteCommand('estimate', 'a box', { threadId: nextThread() })));
    expect(llm.requestsTo('/chat/completions')).toHaveLength(0);
    expect(replyOf(events)?.text).toMatch(
      /^I don’t know the quote mode “estimate”\. Use `\/quote calc <what to make>`/,
    );
  });
});
