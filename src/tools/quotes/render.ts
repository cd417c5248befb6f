import type { Block, Button } from '../../reply/model.js';
import { describeMaterial, describeSize, describeSpecs, money, num, plural, quantity, shorten } from './format.js';
import type { CalcDraft, PriceDraft, TableDraft } from './state.js';

/**
 * The neutral reply of each quote step. `text` carries what the user must read (summary,
 * corrections, missing prices, questions); the blocks carry the table and the buttons
 * for the next step. Each reply has one table at most (Slack allows one per message).
 */

export interface QuoteView {
  text: string;
  blocks: Block[];
}

export const NEXT_STEP = {
  price: {
    actionId: 'quotes.price',
    label: 'Price these materials',
    value: 'Price the materials from the previous calculation.',
    style: 'primary',
  },
  table: {
    actionId: 'quotes.table',
    label: 'Make the quote table',
    value: 'Create a quote table with the pricing.',
    style: 'primary',
  },
  /** While a step waits for answers, every message goes to it: this is the way out. */
  cancel: { actionId: 'quotes.cancel', label: 'Cancel the quote' },
} as const satisfies Record<string, Button>;

export function renderCalc(d: CalcDraft): QuoteView {
  const summary =
    d.items.length === 0
      ? `**Calculation** for “${shorten(d.request, 160)}”: not finished yet.`
      : `**Calculation** for “${shorten(d.request, 160)}”: ${plural(d.items.length, 'item')}.`;
  const blocks: Block[] = [];
  if (d.items.length > 0) {
    blocks.push({ type: 'header', text: 'Calculation' });
    blocks.push(
      table(
        ['Item', 'Qty', 'Material', 'Size (mm)', 'Each (m²)', 'Total (m²)'],
        d.items.map((i) => [
          i.description,
          quantity(i.quantity, i.unit),
          describeSpecs(i),
          describeSize(i),
          i.specs?.area_m2 !== undefined ? num(i.specs.area_m2) : '',
          i.total_area_m2 !== undefined ? num(i.total_area_m2) : '',
        ]),
      ),
    );
  }
  if (d.assumptions.trim()) blocks.push({ type: 'markdown', text: `**Assumptions:** ${d.assumptions.trim()}` });
  if (d.questions.length > 0) blocks.push({ type: 'buttons', buttons: [NEXT_STEP.cancel] });
  else if (d.items.length > 0) blocks.push({ type: 'buttons', buttons: [NEXT_STEP.price] });
  return { text: compose(summary, d.corrections, [], d.questions), blocks };
}

export function renderPrice(d: PriceDraft): QuoteView {
  const material = d.normalized ? describeMaterial(d.normalized) : undefined;
  const priced = d.candidates.filter((c) => c.price_per_uom !== undefined);
  const best = priced[0];
  const qty =
    d.normalized?.qty_required !== undefined ? quantity(d.normalized.qty_required, d.normalized.qty_uom ?? '') : '';
  const summary = !material
    ? '**Pricing**: I need more information before I can price anything.'
    : priced.length === 0
      ? `**Pricing** for ${material}: no supplier price found.`
      : `**Pricing** for ${material}${qty ? ` (${qty} needed)` : ''}: ${plural(priced.length, 'supplier price')}. ` +
        `Best: ${best!.supplier} at ${money(best!.price_per_uom!)} per ${best!.uom}` +
        `${best!.est_total !== undefined ? ` (about ${money(best!.est_total)} delivered)` : ''}.`;
  const blocks: Block[] = [];
  if (d.candidates.length > 0) {
    blocks.push({ type: 'header', text: material ? `Supplier prices: ${material}` : 'Supplier prices' });
    blocks.push(
      table(
        ['Supplier', 'SKU', 'Unit', 'Price per unit', 'Lead time', 'Delivery', 'Est. total', 'Notes'],
        d.candidates.map((c) => [
          c.supplier,
          c.sku,
          c.uom,
          c.price_per_uom !== undefined ? money(c.price_per_uom) : 'no price',
          c.lead_time_days !== undefined ? plural(c.lead_time_days, 'day') : '',
          c.delivery !== undefined ? money(c.delivery) : '',
          c.est_total !== undefined ? money(c.est_total) : '',
          c.notes ?? '',
        ]),
      ),
    );
    blocks.push({
      type: 'context',
      items: ['Catalogue prices, AUD ex GST', 'Est. total = quantity (at least the minimum order) × price + delivery'],
    });
  }
  if (d.questions.length > 0) blocks.push({ type: 'buttons', buttons: [NEXT_STEP.cancel] });
  else if (priced.length > 0) blocks.push({ type: 'buttons', buttons: [NEXT_STEP.table] });
  return { text: compose(summary, d.corrections, d.missing, d.questions), blocks };
}

export function renderTable(d: TableDraft): QuoteView {
  const t = d.totals;
  const summary =
    d.rows.length === 0
      ? '**Quote table**: not finished yet.'
      : `**Quote table**: grand total ${money(t.grand_total_ex_gst)} ex GST ` +
        `(material ${money(t.material)}, labour ${money(t.labour)}, freight ${money(t.freight)}, overheads ${money(t.overheads)}, markup ${num(t.markup_pct)}%).`;
  const blocks: Block[] = [];
  if (d.rows.length > 0) {
    const total = (label: string, amount: number) => [label, '', '', '', money(amount), ''];
    blocks.push({ type: 'header', text: 'Quote' });
    blocks.push(
      table(
        ['Item', 'Qty', 'Unit', 'Unit cost', 'Subtotal', 'Notes'],
        [
          ...d.rows.map((r) => [
            r.item,
            num(r.qty),
            r.uom,
            r.unit_cost !== undefined ? money(r.unit_cost) : 'no price',
            r.subtotal !== undefined ? money(r.subtotal) : '—',
            r.notes ?? '',
          ]),
          total('Material', t.material),
          total('Labour', t.labour),
          total('Freight', t.freight),
          total('Overheads', t.overheads),
          total(`Markup (${num(t.markup_pct)}%)`, t.markup),
          total('Grand total ex GST', t.grand_total_ex_gst),
        ],
        'All amounts AUD, ex GST',
      ),
    );
  }
  if (d.questions.length > 0) blocks.push({ type: 'buttons', buttons: [NEXT_STEP.cancel] });
  return { text: compose(summary, d.corrections, d.missing, d.questions), blocks };
}

function compose(summary: string, corrections: string[], missing: string[], questions: string[]): string {
  const parts = [summary];
  if (corrections.length) parts.push(`I checked the figures and corrected:\n${bullets(corrections)}`);
  if (missing.length) parts.push(`Missing or unverified prices:\n${bullets(missing)}`);
  if (questions.length) {
    const lead = questions.length === 1 ? 'One question before I finish:' : 'A few questions before I finish:';
    parts.push(
      `${lead}\n${questions.map((q, i) => `${i + 1}. ${q}`).join('\n')}\n\nReply in this thread and I’ll carry on.`,
    );
  }
  return parts.join('\n\n');
}

const bullets = (lines: string[]) => lines.map((l) => `• ${l}`).join('\n');

/** A table block without the columns no row fills in. */
function table(columns: string[], rows: string[][], caption?: string): Block {
  const keep = columns.map((_, i) => rows.some((r) => (r[i] ?? '').trim() !== ''));
  return {
    type: 'table',
    columns: columns.filter((_, i) => keep[i]),
    rows: rows.map((r) => r.filter((_, i) => keep[i])),
    ...(caption ? { caption } : {}),
  };
}
