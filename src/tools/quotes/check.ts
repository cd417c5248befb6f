import { ToolError } from '../../contract/tool.js';
import { cents, describeMaterial, mm, money, num, round3 } from './format.js';
import { MAX_QUOTE_TOTAL, type CalcResult, type PriceResult, type TableResult } from './schemas.js';
import type { CheckedCalcItem, CheckedCandidate, CheckedRow, CheckedTotals, Offer, PriceDraft } from './state.js';

/**
 * Server-side checks of the emitted results. The model's arithmetic and prices are never
 * trusted: every figure shown is recomputed here or copied from the catalogue, and each
 * place where the model's number differed becomes a sentence the reply shows.
 */

/** Differences below a cent (or a rounding step of the model) are not worth a correction. */
const MONEY_TOLERANCE = 0.011;

export interface CalcCheck {
  items: CheckedCalcItem[];
  corrections: string[];
}

export function checkCalc(input: CalcResult): CalcCheck {
  const corrections: string[] = [];
  const items = input.results.items.map((item): CheckedCalcItem => {
    const specs = item.specs ? { ...item.specs } : undefined;
    if (specs?.width_mm !== undefined && specs.length_mm !== undefined) {
      const area = round3((specs.width_mm * specs.length_mm) / 1e6);
      const given = specs.area_m2;
      if (given !== undefined && Math.abs(given - area) > Math.max(0.0006, area * 0.005)) {
        corrections.push(
          `“${item.description}”: one piece of ${mm(specs.width_mm)} × ${mm(specs.length_mm)} mm is ${num(area)} m², not ${num(given)} m².`,
        );
      }
      specs.area_m2 = area;
    }
    const checked: CheckedCalcItem = { ...item, ...(specs ? { specs } : {}) };
    if (specs?.area_m2 !== undefined) checked.total_area_m2 = round3(specs.area_m2 * item.quantity);
    return checked;
  });
  return { items, corrections };
}

export interface PriceCheck {
  normalized?: PriceDraft['normalized'];
  candidates: CheckedCandidate[];
  corrections: string[];
  missing: string[];
  questions: string[];
}

/**
 * Candidates are checked against the offers the product tools returned in this thread:
 * supplier, unit, price, lead time and delivery come from the catalogue; a SKU no tool
 * returned keeps no price. `hasCalc` picks the question asked when nothing was priced.
 */
export function checkPrice(input: PriceResult, offers: readonly Offer[], hasCalc: boolean): PriceCheck {
  const corrections: string[] = [];
  const missing: string[] = [];
  const n = input.normalized;
  const bySku = new Map(offers.map((o) => [o.sku.toLowerCase(), o]));
  const seen = new Set<string>();
  const candidates: CheckedCandidate[] = [];

  for (const c of input.candidates) {
    const key = c.sku.trim().toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    const offer = bySku.get(key);
    if (!offer) {
      missing.push(`${c.supplier} ${c.sku}: not in the catalogue results, so no price is shown.`);
      candidates.push({
        supplier: c.supplier,
        sku: c.sku,
        uom: c.uom,
        verified: false,
        ...(c.notes ? { notes: c.notes } : {}),
      });
      continue;
    }
    const label = `${offer.supplier} ${offer.sku}`;
    if (c.price_per_uom !== undefined && Math.abs(c.price_per_uom - offer.price_per_uom) >= 0.005) {
      corrections.push(
        `${label}: the catalogue price is ${money(offer.price_per_uom)} per ${offer.uom}, not ${money(c.price_per_uom)}.`,
      );
    }
    if (c.lead_time_days !== undefined && c.lead_time_days !== offer.lead_time_days) {
      corrections.push(`${label}: lead time is ${offer.lead_time_days} days, not ${c.lead_time_days}.`);
    }
    if (c.delivery !== undefined && Math.abs(c.delivery - offer.delivery_cost) >= 0.005) {
      corrections.push(`${label}: delivery is ${money(offer.delivery_cost)}, not ${money(c.delivery)}.`);
    }
    const checked: CheckedCandidate = {
      supplier: offer.supplier,
      sku: offer.sku,
      uom: offer.uom,
      price_per_uom: offer.price_per_uom,
      lead_time_days: offer.lead_time_days,
      delivery: offer.delivery_cost,
      verified: true,
      thickness_mm: offer.thickness_mm,
      ...(c.notes ? { notes: c.notes } : {}),
    };
    if (n?.qty_required !== undefined && n.qty_uom === offer.uom) {
      checked.est_total = cents(
        Math.max(n.qty_required, offer.min_order_qty) * offer.price_per_uom + offer.delivery_cost,
      );
    }
    candidates.push(checked);
  }

  // A thickness nobody stocks is reported, with what the shown prices are for instead.
  if (n) {
    const other = candidates.filter(
      (c) => c.thickness_mm !== undefined && Math.abs(c.thickness_mm - n.thickness_mm) > 0.051,
    );
    for (const c of other)
      c.notes = [`${mm(c.thickness_mm ?? 0)} mm, not ${mm(n.thickness_mm)} mm`, c.notes].filter(Boolean).join('; ');
    if (other.length > 0 && other.length === candidates.filter((c) => c.verified).length) {
      const shown = [...new Set(other.map((c) => `${mm(c.thickness_mm ?? 0)} mm`))].join(', ');
      missing.push(`No catalogue price for ${mm(n.thickness_mm)} mm; the prices shown are for ${shown}.`);
    }
  }

  const rank = (c: CheckedCandidate) => c.est_total ?? c.price_per_uom ?? Number.POSITIVE_INFINITY;
  candidates.sort((a, b) => rank(a) - rank(b));

  const questions = [...input.questions];
  if (candidates.length === 0 && questions.length === 0) {
    questions.push(
      n
        ? `I found no supplier prices for ${describeMaterial(n)}. Should I price a different thickness, grade or form?`
        : hasCalc
          ? 'Which of the calculated materials should I price?'
          : 'What should I price? Tell me the material, grade, thickness, form and quantity (for example “4 sheets of 304 stainless, 0.9 mm, 1200 × 2400”), or run /quote calc first.',
    );
  }
  return { ...(n ? { normalized: n } : {}), candidates, corrections, missing, questions };
}

export interface TableCheck {
  rows: CheckedRow[];
  totals: CheckedTotals;
  corrections: string[];
  missing: string[];
}

/**
 * Recomputes every subtotal and total: subtotal = qty × unit cost, material = Σ subtotals,
 * grand total ex GST = (material + labour + freight + overheads) × (1 + markup %).
 * A markup the user stated in words wins over the one the model used.
 * Each input is bounded by the schema, but sixty rows at the bounds still add up past what a
 * quote can be: a figure over MAX_QUOTE_TOTAL (or not finite) is a ToolError the model can
 * fix, so the user never reads "$∞" or a total that lost its cents.
 */
export function checkTable(input: TableResult, knownPrices: readonly number[], statedMarkupPct?: number): TableCheck {
  const corrections: string[] = [];
  const missing: string[] = [];
  let materialCents = 0;

  const rows = input.rows.map((row): CheckedRow => {
    const base: CheckedRow = { item: row.item, qty: row.qty, uom: row.uom, ...(row.notes ? { notes: row.notes } : {}) };
    if (row.unit_cost === undefined) {
      missing.push(`“${row.item}”: no price was found, so it is left out of the totals.`);
      return base;
    }
    const subtotal = cents(row.qty * row.unit_cost);
    assertQuotable(subtotal, `the row “${row.item}” (qty × unit_cost)`);
    if (row.subtotal !== undefined && Math.abs(row.subtotal - subtotal) > MONEY_TOLERANCE) {
      corrections.push(
        `“${row.item}”: ${num(row.qty)} × ${money(row.unit_cost)} = ${money(subtotal)}, not ${money(row.subtotal)}.`,
      );
    }
    if (knownPrices.length > 0 && !knownPrices.some((p) => Math.abs(p - row.unit_cost!) < 0.005)) {
      missing.push(
        `“${row.item}”: the unit cost ${money(row.unit_cost)} is not one of the supplier prices found in this thread; check it.`,
      );
    }
    materialCents += Math.round(subtotal * 100);
    assertQuotable(materialCents / 100, 'the material total (the sum of the rows)');
    return { ...base, unit_cost: row.unit_cost, subtotal };
  });

  const t = input.totals;
  const material = materialCents / 100;
  if (Math.abs(t.material - material) > MONEY_TOLERANCE) {
    corrections.push(`Material: the rows add up to ${money(material)}, not ${money(t.material)}.`);
  }
  let markupPct = t.markup_pct;
  if (statedMarkupPct !== undefined && Math.abs(statedMarkupPct - t.markup_pct) > 1e-9) {
    corrections.push(
      `Markup: you asked for ${num(statedMarkupPct)}%, so I applied ${num(statedMarkupPct)}% instead of ${num(t.markup_pct)}%.`,
    );
    markupPct = statedMarkupPct;
  }
  const costs = cents(material + t.labour + t.freight + t.overheads);
  const markup = cents((costs * markupPct) / 100);
  const grand = cents(costs + markup);
  assertQuotable(grand, 'the grand total');
  if (Math.abs(t.grand_total_ex_gst - grand) > MONEY_TOLERANCE) {
    const parts = [material, t.labour, t.freight, t.overheads].map(money).join(' + ');
    const factor = markupPct > 0 ? ` × ${num(1 + markupPct / 100)}` : '';
    corrections.push(`Grand total ex GST: (${parts})${factor} = ${money(grand)}, not ${money(t.grand_total_ex_gst)}.`);
  }
  return {
    rows,
    totals: {
      material,
      labour: t.labour,
      freight: t.freight,
      overheads: t.overheads,
      markup_pct: markupPct,
      markup,
      grand_total_ex_gst: grand,
    },
    corrections,
    missing,
  };
}

function assertQuotable(amount: number, what: string): void {
  if (Number.isFinite(amount) && amount <= MAX_QUOTE_TOTAL) return;
  throw new ToolError(
    `Invalid quote: ${what} would be over ${money(MAX_QUOTE_TOTAL)}, more than any quote can be. ` +
      'Check each row’s qty (the count for the whole job, in its uom) and unit_cost (the price per uom), then emit again.',
  );
}

/** A markup the user stated: "20% markup", "markup of 20%", "mark-up 12.5 %". */
export function statedMarkup(text: string): number | undefined {
  const m =
    /(\d+(?:\.\d+)?)\s*%\s*mark-?\s?up/i.exec(text) ?? /mark-?\s?up\s*(?:of|at|=|:)?\s*(\d+(?:\.\d+)?)\s*%/i.exec(text);
  const pct = m ? Number(m[1]) : NaN;
  return Number.isFinite(pct) && pct >= 0 && pct <= 500 ? pct : undefined;
}
