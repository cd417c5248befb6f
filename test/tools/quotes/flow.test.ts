import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../../src/adapters/http/app.js';
import { startHttpServer, type RunningServer } from '../../../src/adapters/http/server.js';
import { newThreadState } from '../../../src/contract/thread-state.js';
import { scopeToTenant, type DataPort, type Tenant } from '../../../src/contract/data.js';
import { renderPlainText } from '../../../src/reply/plain-text.js';
import { materialPriceRow } from '../../../src/data/rows.js';
import { createCatalogueCheck } from '../../../src/tools/quotes/product-tools.js';
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
  priceArgs,
  pricingCall,
  quoteCommand,
  requestView,
  startQuoteHarness,
  tableArgs,
  tableOf,
} from './helpers.js';
import { unfence } from '../../helpers/fence.js';

/**
 * The design note's three scenarios end to end in one thread — CALC, then PRICE "from the
 * previous calculation", then TABLE — with the scripted model and the real demo catalogue,
 * through the agent and over HTTP.
 */

let llm: FakeOpenAI;
let h: Harness;
let server: RunningServer;
let thread = 0;
const nextThread = () => `quote-flow-${++thread}`;

beforeAll(async () => {
  llm = await startFakeOpenAI();
  h = await startQuoteHarness(llm);
  server = await startHttpServer(createHttpApp({ agent: h.sb.agent, log: h.sb.log }), 0, '127.0.0.1');
});
afterAll(async () => {
  await server.close();
  await h.close();
  await llm.close();
});
beforeEach(() => llm.reset());

describe('quote: CALC → PRICE → TABLE in one thread', () => {
  it('runs the three steps through /quote and the next-step buttons', async () => {
    const threadId = nextThread();
    const offers = await boxOffers(h);
    const best = cheapest(offers);

    // CALC
    llm.script({ toolCalls: [{ name: 'emit_calc_result', arguments: calcArgs }] });
    const calc = await collect(h.sb.agent.handle(quoteCommand('calc', BOX_REQUEST, { threadId })));
    const calcReq = requestView(llm.requestsTo('/chat/completions')[0]!.body);
    expect(calcReq.tools).toEqual(['emit_calc_result']);
    expect(calcReq.system).toContain('MODE=CALC');
    expect(calcReq.last).toMatchObject({ role: 'user', content: BOX_REQUEST });
    const calcReply = replyOf(calc);
    expect(calcReply?.text).toMatch(/^\*\*Calculation\*\* for “3 stainless steel boxes.*”: 3 items\.$/);
    expect(tableOf(calcReply).rows[1]).toEqual([
      'Side panel 700 × 400',
      '12 pieces',
      '304 stainless steel, 0.8 mm sheet',
      '700 × 400',
      '0.28',
      '3.36',
    ]);
    expect(renderPlainText(calcReply!)).toContain('**Assumptions:** Grade 304 stainless');
    const [priceButton] = buttonsOf(calcReply);
    expect(priceButton).toMatchObject({ actionId: 'quotes.price', label: 'Price these materials' });
    expect(doneOf(calc).data).toMatchObject({ quote: { step: 'calc', items: expect.any(Array) } });

    // PRICE, from the previous calculation: 0.8 mm is not stocked, so the model prices 0.9 mm.
    llm.reset();
    llm.script(
      { toolCalls: [pricingCall(0.8)] },
      { toolCalls: [pricingCall(0.9)] },
      { toolCalls: [{ name: 'emit_price_result', arguments: priceArgs(offers) }] },
    );
    const price = await collect(h.sb.agent.handle(click(priceButton!, { threadId })));
    const [p1, p2, p3] = llm.requestsTo('/chat/completions').map((r) => requestView(r.body));
    expect(p1!.tools).toEqual([
      'search_products',
      'get_pricing_for_material',
      'compare_suppliers',
      'emit_price_result',
    ]);
    expect(p1!.system).toContain('MODE=PRICE');
    expect(p1!.system).toMatch(/From the previous calculation:[\s\S]*12 pieces × Side panel 700 × 400/);
    expect(p1!.last).toMatchObject({ role: 'user', content: 'Price the materials from the previous calculation.' });
    expect(p2!.last?.content).toMatch(/No supplier prices at 0\.8 mm\. This material is stocked in 0\.55 mm, 0\.9 mm/);
    expect(p3!.last?.content).toContain(best.sku);
    const priceReply = replyOf(price);
    expect(priceReply?.text).toContain(`Best: ${best.supplier} at $${best.price_per_uom.toFixed(2)} per sheet`);
    expect(priceReply?.text).toContain('No catalogue price for 0.8 mm; the prices shown are for 0.9 mm.');
    const priceTable = tableOf(priceReply);
    expect(priceTable.columns).toEqual([
      'Supplier',
      'SKU',
      'Unit',
      'Price per unit',
      'Lead time',
      'Delivery',
      'Est. total',
      'Notes',
    ]);
    expect(priceTable.rows[0]).toEqual([
      best.supplier,
      best.sku,
      'sheet',
      `$${best.price_per_uom.toFixed(2)}`,
      `${best.lead_time_days} days`,
      `$${best.delivery_cost.toFixed(2)}`,
      `$${cents(3 * best.price_per_uom + best.delivery_cost).toFixed(2)}`,
      '0.9 mm, not 0.8 mm',
    ]);
    const [tableButton] = buttonsOf(priceReply);
    expect(tableButton).toMatchObject({ actionId: 'quotes.table', label: 'Make the quote table' });

    // TABLE, from the pricing.
    llm.reset();
    llm.script({ toolCalls: [{ name: 'emit_table_result', arguments: tableArgs(best) }] });
    const table = await collect(h.sb.agent.handle(click(tableButton!, { threadId })));
    const t1 = requestView(llm.requestsTo('/chat/completions')[0]!.body);
    expect(t1.tools).toEqual(['emit_table_result']);
    expect(t1.system).toMatch(/From the previous pricing:[\s\S]*BSA-SS304-2B-SHEET-0\.9-1200X2400/);
    const tableReply = replyOf(table);
    const grand = cents(3 * best.price_per_uom + best.delivery_cost);
    expect(tableReply?.text).toContain(`grand total $${grand.toFixed(2)} ex GST`);
    expect(tableReply?.text).not.toContain('corrected');
    const quote = tableOf(tableReply);
    expect(quote.columns).toEqual(['Item', 'Qty', 'Unit', 'Unit cost', 'Subtotal', 'Notes']);
    expect(quote.rows.at(-1)).toEqual(['Grand total ex GST', '', '', '', `$${grand.toFixed(2)}`, '']);
    expect(doneOf(table).data).toMatchObject({
      quote: { step: 'table', totals: { grand_total_ex_gst: grand, markup: 0 } },
    });

    // The quote is done: the thread is back in conversation, with the main tools.
    llm.reset();
    llm.script({ text: 'You are welcome.' });
    await collect(h.sb.agent.handle(message('thanks', { threadId })));
    const after = requestView(llm.lastRequest('/chat/completions')!.body);
    expect(after.tools).toContain('start_quote');
    expect(after.tools).not.toContain('emit_table_result');
  });

  it('starts a quote from plain conversation and runs it in the same turn', async () => {
    const threadId = nextThread();
    const text = `Could you work out the sheet metal for ${BOX_REQUEST}?`;
    llm.script(
      { toolCalls: [{ name: 'start_quote', arguments: { mode: 'calc', request: BOX_REQUEST } }] },
      { toolCalls: [{ name: 'emit_calc_result', arguments: calcArgs }] },
    );
    const events = await collect(h.sb.agent.handle(message(text, { threadId })));
    const [main, mode] = llm.requestsTo('/chat/completions').map((r) => requestView(r.body));
    expect(main!.tools).toContain('start_quote');
    expect(main!.tools).not.toContain('emit_calc_result');
    expect(mode!.tools).toEqual(['emit_calc_result']);
    expect(mode!.system).toContain(`The request: ${BOX_REQUEST}`);
    expect(mode!.last).toMatchObject({ role: 'user', content: text });
    expect(replyOf(events)?.text).toMatch(/^\*\*Calculation\*\*/);
    expect(doneOf(events).toolCalls.map((c) => c.tool)).toEqual(['start_quote', 'emit_calc_result']);
    expect(events.filter((e) => e.type === 'reply')).toHaveLength(1);
  });
});

describe('catalogue lookups', () => {
  it('answers a price question from conversation through the PRICE step, whose tools only it is offered', async () => {
    const idFromSearch = (body: Record<string, unknown>) =>
      /\(id ([0-9a-f-]{36})\)/.exec(String(requestView(body).last?.content))?.[1] ?? 'missing';
    const tenant = await h.sb.data.defaultTenant();
    const offers = await h.sb.data.call(
      'get_pricing_for_material',
      {
        tenant_id: tenant.id,
        family: 'aluminium',
        grade: '5052',
        form: 'sheet',
        thickness_mm: 3,
        width_mm: 1200,
        length_mm: 2400,
      },
      materialPriceRow,
    );
    expect(offers.length).toBeGreaterThan(1);
    llm.script(
      {
        toolCalls: [
          {
            name: 'start_quote',
            arguments: { mode: 'price', request: 'four 3 mm aluminium sheets, cheapest supplier' },
          },
        ],
      },
      {
        toolCalls: [
          { name: 'search_products', arguments: { family: 'aluminum', form: 'sheet', thickness_mm: 3, query: '2400' } },
        ],
      },
      (req) => ({
        toolCalls: [
          { name: 'compare_suppliers', arguments: {} },
          { name: 'compare_suppliers', arguments: { product_id: idFromSearch(req.body), quantity: 4 } },
        ],
      }),
      {
        toolCalls: [
          {
            name: 'emit_price_result',
            arguments: {
              ...priceArgs(offers),
              normalized: {
                family: 'aluminium',
                grade: '5052',
                thickness_mm: 3,
                form: 'sheet',
                sheet_size_mm: [1200, 2400],
                qty_uom: 'sheet',
                qty_required: 4,
              },
            },
          },
        ],
      },
    );
    const events = await collect(
      h.sb.agent.handle(message('Who is cheapest for four 3 mm aluminium sheets?', { threadId: nextThread() })),
    );
    const [main, first, second, third] = llm.requestsTo('/chat/completions').map((r) => requestView(r.body));
    // Plain conversation carries start_quote, not the lookups' schemas.
    expect(main!.tools).toContain('start_quote');
    for (const lookup of ['search_products', 'get_pricing_for_material', 'compare_suppliers'])
      expect(main!.tools).not.toContain(lookup);
    expect(first!.tools).toEqual([
      'search_products',
      'get_pricing_for_material',
      'compare_suppliers',
      'emit_price_result',
    ]);
    expect(unfence(second!.last?.content)).toMatch(
      /^AL5052-mill-SHEET-3-1200X2400 \(id [0-9a-f-]{36}\) · 5052 aluminium sheet, 3 mm, 2400 x 1200 mm · \d suppliers/,
    );
    const toolMessages = third!.messages.filter((m) => m.role === 'tool').map((m) => unfence(m.content));
    expect(toolMessages.at(-2)).toBe('Error: Give a product_id or at least one of family, grade, form, thickness_mm.');
    expect(toolMessages.at(-1)).toMatch(
      /^supplier "Southern Cross Metals" · sku SCM-AL5052-mill-SHEET-3-1200X2400 .* for 4 sheets: \$1,169\.60 landed \(rank 1, cheapest, fastest\)$/m,
    );
    const reply = replyOf(events);
    const best = cheapest(offers);
    expect(reply?.text).toContain(`Best: ${best.supplier}`);
    expect(tableOf(reply).rows.map((r) => r[0])).toContain('Southern Cross Metals');
    expect(events.filter((e) => e.type === 'reply')).toHaveLength(1);
  });

  it('offers the catalogue tools only to tenants with products, checking once per tenant and TTL', async () => {
    let clock = 0;
    const hasCatalogue = createCatalogueCheck(60_000, () => clock);
    let calls = 0;
    const data = {
      ...h.sb.data,
      call: ((...args: Parameters<DataPort['call']>) => (calls++, h.sb.data.call(...args))) as DataPort['call'],
    };
    const ctx = (tenant: Tenant) => ({
      tenant,
      state: newThreadState('t'),
      data: scopeToTenant(data, tenant.id),
      log: h.sb.log,
    });
    const shop = await h.sb.data.defaultTenant();
    const agency: Tenant = { ...shop, id: randomUUID(), name: 'Agency without products', isDefault: false };
    expect(await hasCatalogue(ctx(shop))).toBe(true);
    expect(await hasCatalogue(ctx(agency))).toBe(false);
    expect(await hasCatalogue(ctx(shop))).toBe(true);
    expect(calls).toBe(2);
    clock = 60_001;
    expect(await hasCatalogue(ctx(agency))).toBe(false);
    expect(calls).toBe(3);
    // A burst of turns asking at once (after a restart or a TTL) sends one query, not one each.
    clock = 120_002;
    expect(await Promise.all(Array.from({ length: 20 }, () => hasCatalogue(ctx(shop))))).toEqual(Array(20).fill(true));
    expect(calls).toBe(4);
  });
});

describe('quote over HTTP', () => {
  const post = async (body: unknown) => {
    const res = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as {
      threadId: string;
      response: string;
      blocks: { type: string; buttons?: { actionId: string; value?: string }[]; rows?: string[][] }[];
      toolCalls: { tool: string }[];
      quote?: Record<string, unknown>;
    };
  };
  const buttonIn = (body: Awaited<ReturnType<typeof post>>) =>
    body.blocks.find((b) => b.type === 'buttons')?.buttons?.[0];

  it('runs CALC from a message, then PRICE and TABLE through the buttons’ action field', async () => {
    const offers = await boxOffers(h);
    const best = cheapest(offers);
    llm.script(
      { toolCalls: [{ name: 'start_quote', arguments: { mode: 'calc', request: BOX_REQUEST } }] },
      { toolCalls: [{ name: 'emit_calc_result', arguments: calcArgs }] },
    );
    const calc = await post({ message: `/quote calc ${BOX_REQUEST}` });
    expect(calc.response).toMatch(/^\*\*Calculation\*\*/);
    expect(calc.toolCalls.map((c) => c.tool)).toEqual(['start_quote', 'emit_calc_result']);
    expect(calc.quote).toMatchObject({ step: 'calc' });
    const priceButton = buttonIn(calc);
    expect(priceButton?.actionId).toBe('quotes.price');

    llm.script(
      { toolCalls: [pricingCall(0.9)] },
      { toolCalls: [{ name: 'emit_price_result', arguments: priceArgs(offers) }] },
    );
    const price = await post({
      threadId: calc.threadId,
      action: { id: priceButton!.actionId, value: priceButton!.value },
    });
    expect(price.toolCalls.map((c) => c.tool)).toEqual(['get_pricing_for_material', 'emit_price_result']);
    expect(price.blocks.find((b) => b.type === 'table')?.rows?.[0]?.[1]).toBe(best.sku);
    const tableButton = buttonIn(price);
    expect(tableButton?.actionId).toBe('quotes.table');

    llm.script({ toolCalls: [{ name: 'emit_table_result', arguments: tableArgs(best, { markup: 10 }) }] });
    const table = await post({
      threadId: calc.threadId,
      action: { id: tableButton!.actionId, value: tableButton!.value },
    });
    const grand = cents((3 * best.price_per_uom + best.delivery_cost) * 1.1);
    expect(table.quote).toMatchObject({ step: 'table', totals: { markup_pct: 10, grand_total_ex_gst: grand } });
    expect(table.blocks.find((b) => b.type === 'table')?.rows?.at(-1)).toEqual([
      'Grand total ex GST',
      '',
      '',
      '',
      `$${grand.toFixed(2)}`,
      '',
    ]);
  });
});
