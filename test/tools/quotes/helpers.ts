import type { IncomingMessage, TurnEvent } from '../../../src/contract/turn.js';
import { parseConfig } from '../../../src/config/index.js';
import { materialPriceRow } from '../../../src/data/rows.js';
import type { Button, Reply } from '../../../src/reply/model.js';
import { createQuoteTools } from '../../../src/tools/quotes/index.js';
import type { FakeOpenAI } from '../../fakes/openai-server.js';
import { message, sentMessages, startHarness, type Harness } from '../../helpers/harness.js';

/** The design note's three requests, in one thread. */
export const BOX_REQUEST = '3 stainless steel boxes, 700×700×400mm, 0.8mm thick, open top';
export const PRICE_REQUEST = 'Price the materials from the previous calculation';
export const TABLE_REQUEST = 'Create a quote table with the pricing';

export function quoteTools() {
  return createQuoteTools(parseConfig({}));
}

export async function startQuoteHarness(llm: FakeOpenAI): Promise<Harness> {
  const { tools, extensions } = quoteTools();
  return startHarness({ llm, tools, extensions, now: () => new Date('2026-11-21T12:00:00Z') });
}

export function quoteCommand(mode: string, request: string, over: Partial<IncomingMessage>): IncomingMessage {
  return message(`/quote ${mode} ${request}`.trim(), {
    command: { name: 'quote', options: { mode, ...(request ? { request } : {}) } },
    ...over,
  });
}

export function click(button: Button, over: Partial<IncomingMessage>): IncomingMessage {
  return message('', { action: { id: button.actionId, ...(button.value ? { value: button.value } : {}) }, ...over });
}

export function buttonsOf(reply: Reply | undefined): Button[] {
  return (reply?.blocks ?? []).flatMap((b) => (b.type === 'buttons' ? b.buttons : []));
}

export function tableOf(reply: Reply | undefined) {
  const table = reply?.blocks.find((b) => b.type === 'table');
  if (table?.type !== 'table') throw new Error('reply has no table block');
  return table;
}

export function doneOf(events: TurnEvent[]) {
  const done = events.find((e) => e.type === 'done');
  if (done?.type !== 'done') throw new Error('turn did not finish');
  return done;
}

/** The system prompt, tool names and last message of a recorded chat request. */
export function requestView(body: Record<string, unknown>) {
  const messages = sentMessages(body);
  const tools = ((body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
  return { system: String(messages[0]?.content ?? ''), tools, last: messages.at(-1), messages };
}

/** A plausible CALC result: welded boxes from separate blanks, nested on stock sheets. */
export const calcArgs = {
  inputs: {
    raw_input: BOX_REQUEST,
    parsed: [
      { name: 'quantity', value: '3 boxes' },
      { name: 'size', value: '700 × 700 × 400 mm' },
      { name: 'thickness', value: '0.8 mm' },
    ],
  },
  results: {
    items: [
      { description: 'Base 700 × 700', quantity: 3, unit: 'piece', specs: spec(700, 700, 0.49) },
      { description: 'Side panel 700 × 400', quantity: 12, unit: 'piece', specs: spec(700, 400, 0.28) },
      { description: 'Stock sheet 1200 × 2400', quantity: 3, unit: 'sheet', specs: spec(1200, 2400, 2.88) },
    ],
    assumptions: 'Grade 304 stainless; sides welded at the corners; one box nests on one 1200 × 2400 sheet.',
  },
  questions: [],
};

function spec(width_mm: number, length_mm: number, area_m2: number) {
  return { material: 'stainless steel', grade: '304', thickness_mm: 0.8, form: 'sheet', width_mm, length_mm, area_m2 };
}

export const pricingCall = (thickness_mm: number) => ({
  name: 'get_pricing_for_material',
  arguments: { family: 'stainless', grade: '304', form: 'sheet', thickness_mm, width_mm: 1200, length_mm: 2400 },
});

/** The real catalogue's 304 2B offers at 0.9 mm (no supplier stocks 0.8 mm). */
export async function boxOffers(h: Harness) {
  const tenant = await h.sb.data.defaultTenant();
  const rows = await h.sb.data.call(
    'get_pricing_for_material',
    {
      tenant_id: tenant.id,
      family: 'stainless',
      grade: '304',
      form: 'sheet',
      thickness_mm: 0.9,
      width_mm: 1200,
      length_mm: 2400,
    },
    materialPriceRow,
  );
  return rows.filter((r) => r.code.includes('-2B-'));
}

type OfferRow = Awaited<ReturnType<typeof boxOffers>>[number];

export function priceArgs(offers: OfferRow[], over: { price?: (o: OfferRow) => number } = {}) {
  return {
    normalized: {
      family: 'stainless',
      grade: '304',
      thickness_mm: 0.8,
      form: 'sheet',
      sheet_size_mm: [1200, 2400],
      qty_uom: 'sheet',
      qty_required: 3,
    },
    candidates: offers.map((o) => ({
      supplier: o.supplier,
      sku: o.sku,
      uom: o.uom,
      price_per_uom: over.price ? over.price(o) : o.price_per_uom,
      lead_time_days: o.lead_time_days,
      delivery: o.delivery_cost,
      notes: null,
    })),
    questions: [],
  };
}

export const cents = (n: number) => Math.round(n * 100) / 100;

/** A TABLE result from the cheapest landed offer, with the model's own (correct) arithmetic. */
export function tableArgs(
  best: OfferRow,
  over: { subtotal?: number; material?: number; grand?: number; markup?: number } = {},
) {
  const subtotal = cents(3 * best.price_per_uom);
  const markup = over.markup ?? 0;
  return {
    rows: [
      {
        item: '304 stainless 2B sheet, 0.9 mm, 1200 × 2400',
        qty: 3,
        uom: 'sheet',
        unit_cost: best.price_per_uom,
        subtotal: over.subtotal ?? subtotal,
        notes: `${best.supplier} ${best.sku}`,
      },
    ],
    totals: {
      material: over.material ?? subtotal,
      labour: 0,
      freight: best.delivery_cost,
      overheads: 0,
      markup_pct: markup,
      grand_total_ex_gst: over.grand ?? cents((subtotal + best.delivery_cost) * (1 + markup / 100)),
    },
    markdown: `| Item | Qty | Unit cost |\n|---|---|---|\n| 304 sheet | 3 | ${best.price_per_uom} |`,
    questions: [],
  };
}

/** The offer a buyer would pick: lowest price × 3 + delivery. */
export function cheapest(offers: OfferRow[]): OfferRow {
  return [...offers].sort(
    (a, b) => a.price_per_uom * 3 + a.delivery_cost - (b.price_per_uom * 3 + b.delivery_cost),
  )[0]!;
}
