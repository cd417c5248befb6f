import { getToolState, type ThreadState } from '../../contract/thread-state.js';
import type { CalcItem, PriceResult } from './schemas.js';

/**
 * The thread's quote draft under `state.tools.quotes`: each mode's checked result (so
 * PRICE builds on the CALC before it and TABLE on the PRICE) and the catalogue offers the
 * product tools returned, which are the only prices a draft may carry. Plain JSON: the
 * thread store serialises it.
 */

export type QuoteStep = 'calc' | 'price' | 'table';

/** One supplier's price for one product, as a product tool returned it. */
export interface Offer {
  supplier: string;
  sku: string;
  uom: string;
  price_per_uom: number;
  lead_time_days: number;
  delivery_cost: number;
  min_order_qty: number;
  code: string;
  family: string;
  grade: string;
  form: string;
  thickness_mm: number;
  size_label: string;
}

export type CheckedCalcItem = CalcItem & { total_area_m2?: number };

export interface CalcDraft {
  request: string;
  items: CheckedCalcItem[];
  assumptions: string;
  questions: string[];
  corrections: string[];
  at: string;
}

export interface CheckedCandidate {
  supplier: string;
  sku: string;
  uom: string;
  /** Undefined when the catalogue had no price: shown as missing, never guessed. */
  price_per_uom?: number;
  lead_time_days?: number;
  delivery?: number;
  notes?: string;
  /** quantity (at least the minimum order) × price + delivery, when the units agree. */
  est_total?: number;
  /** Whether the SKU came from a catalogue lookup in this thread. */
  verified: boolean;
  thickness_mm?: number;
}

export interface PriceDraft {
  request: string;
  normalized?: NonNullable<PriceResult['normalized']>;
  candidates: CheckedCandidate[];
  questions: string[];
  corrections: string[];
  missing: string[];
  at: string;
}

export interface CheckedRow {
  item: string;
  qty: number;
  uom: string;
  unit_cost?: number;
  subtotal?: number;
  notes?: string;
}

export interface CheckedTotals {
  material: number;
  labour: number;
  freight: number;
  overheads: number;
  markup_pct: number;
  markup: number;
  grand_total_ex_gst: number;
}

export interface TableDraft {
  request: string;
  rows: CheckedRow[];
  totals: CheckedTotals;
  questions: string[];
  corrections: string[];
  missing: string[];
  at: string;
}

export interface QuoteState {
  calc?: CalcDraft;
  /** One per material priced, newest last. */
  prices: PriceDraft[];
  table?: TableDraft;
  offers: Offer[];
}

const FAMILY = 'quotes';
const MAX_OFFERS = 120;
const MAX_PRICE_DRAFTS = 8;

export function quoteState(state: ThreadState): QuoteState {
  const qs = getToolState<QuoteState>(state, FAMILY, () => ({ prices: [], offers: [] }));
  // Older or partial states (e.g. written by another version) still work.
  qs.prices ??= [];
  qs.offers ??= [];
  return qs;
}

/** Remembers offers a product tool returned; the newest copy of a SKU wins. */
export function rememberOffers(state: ThreadState, offers: readonly Offer[]): void {
  if (offers.length === 0) return;
  const qs = quoteState(state);
  const fresh = new Set(offers.map((o) => o.sku.toLowerCase()));
  qs.offers = [...qs.offers.filter((o) => !fresh.has(o.sku.toLowerCase())), ...offers].slice(-MAX_OFFERS);
}

/** A new calculation makes the prices and table built on the old one stale. */
export function saveCalc(state: ThreadState, draft: CalcDraft): void {
  const qs = quoteState(state);
  qs.calc = draft;
  qs.prices = [];
  delete qs.table;
}

/**
 * Replaces the draft for the same material; a new price makes the table stale. A draft
 * without a material (only questions) is not kept: the mode's pending questions carry it.
 */
export function savePrice(state: ThreadState, draft: PriceDraft): void {
  const qs = quoteState(state);
  if (draft.normalized) {
    const key = materialKey(draft.normalized);
    qs.prices = [...qs.prices.filter((p) => !p.normalized || materialKey(p.normalized) !== key), draft].slice(
      -MAX_PRICE_DRAFTS,
    );
    delete qs.table;
  }
}

export function saveTable(state: ThreadState, draft: TableDraft): void {
  quoteState(state).table = draft;
}

function materialKey(n: NonNullable<PriceResult['normalized']>): string {
  return [n.family, n.grade, n.form, n.thickness_mm].map((p) => String(p).trim().toLowerCase()).join('|');
}
