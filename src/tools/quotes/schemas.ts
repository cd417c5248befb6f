import { z } from 'zod';

/**
 * The three emit schemas, written once: the registry exports them as the JSON Schema the
 * model sees (OpenAI strict or Gemini) and validates the model's arguments with them, so a
 * missing field or a fourth question goes back to the model as a fixable error.
 *
 * Shapes follow the emit-tools design note, with two changes strict mode forces or the
 * "never invent a price" rule asks for: free-form objects (`parsed`, `specs`) are
 * structured, and a price the tools did not find is `null` rather than a guess.
 */

export const FORMS = ['sheet', 'plate', 'tube', 'angle', 'bar'] as const;
export const QTY_UOMS = ['sheet', 'kg', 'm', 'each'] as const;

/**
 * Upper bounds no real quote reaches, so every figure the server computes from them stays
 * finite and exact to the cent (a double holds whole cents exactly up to 2^53, about $90
 * trillion). The catalogue sells sheet, bar and tube at cents to thousands of dollars a unit
 * in jobs of a few to thousands of units: a billion units, a billion dollars a unit and ten
 * trillion dollars in all are each six orders of magnitude past that. A kilometre bounds a
 * dimension (the longest stock is metres). Totals past MAX_QUOTE_TOTAL are refused by checkTable.
 */
export const MAX_QUANTITY = 1e9;
export const MAX_UNIT_PRICE = 1e9;
export const MAX_QUOTE_TOTAL = 1e13;
export const MAX_LENGTH_MM = 1e6;
const MAX_AREA_M2 = (MAX_LENGTH_MM * MAX_LENGTH_MM) / 1e6;

const words = (n: number) => n.toLocaleString('en');
const positive = (what: string, max: number, hint = '') =>
  z
    .number()
    .positive({ error: `${what} must be greater than 0` })
    .max(max, { error: `${what} must be at most ${words(max)}${hint}` });
const quantity = (what: string) => positive(what, MAX_QUANTITY, ' (the count for the whole job)');
const unitPrice = (what: string) => positive(what, MAX_UNIT_PRICE, ' per unit: check the price and its unit');
const length = (what: string) => positive(what, MAX_LENGTH_MM, ' mm');
const money = (what: string) =>
  z
    .number()
    .min(0, { error: `${what} cannot be negative` })
    .max(MAX_QUOTE_TOTAL, { error: `${what} must be at most ${words(MAX_QUOTE_TOTAL)}: check the figures` });
const text = (max: number) => z.string().trim().min(1).max(max);
const questions = (max: number) =>
  z
    .array(text(300))
    .max(max, { error: `ask at most ${max} question${max === 1 ? '' : 's'}; make reasonable assumptions for the rest` })
    .describe(`Questions for the user, only when truly blocked (at most ${max}); empty when none`);

// ---- CALC ----

export const calcSpecs = z.object({
  material: z
    .string()
    .max(120)
    .optional()
    .describe('Material family, e.g. "stainless steel", "aluminium", "mild steel"'),
  grade: z.string().max(40).optional().describe('e.g. "304", "316", "5052"'),
  thickness_mm: length('thickness_mm').optional(),
  form: z.enum(FORMS).optional(),
  width_mm: length('width_mm').optional().describe('Flat pattern (blank) width'),
  length_mm: length('length_mm').optional().describe('Flat pattern (blank) length'),
  area_m2: positive('area_m2', MAX_AREA_M2, ' m²')
    .optional()
    .describe('Area of ONE piece in m² = width_mm × length_mm / 1,000,000'),
  notes: z.string().max(300).optional(),
});

export const calcItem = z.object({
  description: text(200),
  quantity: quantity('quantity').describe('Total count for the whole job (all units)'),
  unit: text(30).describe('e.g. "piece", "sheet", "m", "kg"'),
  specs: calcSpecs.optional(),
});

export const calcResult = z.object({
  inputs: z.object({
    raw_input: z.string().max(2000).describe("The user's request as given"),
    parsed: z
      .array(z.object({ name: text(60), value: text(200) }))
      .max(20)
      .optional()
      .describe('What you read from the request, e.g. { name: "thickness", value: "0.8 mm" }'),
  }),
  results: z.object({
    items: z.array(calcItem).max(40).describe('Flat patterns, parts and materials with quantities'),
    assumptions: z.string().max(2000).describe('Every assumption you made, in a sentence or a short list'),
  }),
  questions: questions(3),
});
export type CalcResult = z.infer<typeof calcResult>;
export type CalcItem = z.infer<typeof calcItem>;

// ---- PRICE ----

export const priceCandidate = z.object({
  supplier: text(120),
  sku: text(120).describe('Exactly as the pricing tool returned it'),
  uom: text(20).describe('Unit the price is per: sheet, m, kg or each'),
  price_per_uom: unitPrice('price_per_uom')
    .optional()
    .describe('Exactly as the pricing tool returned it; null when no price was found. Never estimate a price.'),
  lead_time_days: z.number().int().min(0).max(365).optional(),
  delivery: money('delivery').optional().describe('Delivery cost for the order, as the tool returned it'),
  notes: z.string().max(300).optional(),
});

export const priceResult = z.object({
  normalized: z
    .object({
      family: text(60).describe('stainless, aluminium or mild_steel'),
      grade: z.string().max(40).describe('e.g. "304"; empty when any grade will do'),
      thickness_mm: length('thickness_mm'),
      form: z.enum(FORMS),
      sheet_size_mm: z
        .array(length('sheet_size_mm'))
        .length(2)
        .optional()
        .describe('[width, length] of the stock sheet'),
      qty_uom: z.enum(QTY_UOMS).optional(),
      qty_required: quantity('qty_required').optional().describe('How many qty_uom the job needs'),
    })
    .optional()
    .describe('The material priced; null only when you must ask what to price'),
  candidates: z.array(priceCandidate).max(20).describe('Supplier offers from the pricing tools, cheapest first'),
  questions: questions(3),
});
export type PriceResult = z.infer<typeof priceResult>;
export type PriceCandidate = z.infer<typeof priceCandidate>;

// ---- TABLE ----

export const tableRow = z.object({
  item: text(200),
  qty: quantity('qty'),
  uom: text(20),
  unit_cost: unitPrice('unit_cost').optional().describe('Supplier price per uom, ex GST; null when no price was found'),
  subtotal: z
    .number()
    .min(-MAX_QUOTE_TOTAL)
    .max(MAX_QUOTE_TOTAL, { error: `subtotal must be at most ${words(MAX_QUOTE_TOTAL)}: check qty and unit_cost` })
    .optional()
    .describe('qty × unit_cost; null when unit_cost is null'),
  notes: z.string().max(200).optional().describe('e.g. supplier and SKU'),
});

export const tableResult = z.object({
  rows: z.array(tableRow).max(60),
  totals: z.object({
    material: money('material').describe('Sum of the row subtotals'),
    labour: money('labour'),
    freight: money('freight'),
    overheads: money('overheads'),
    markup_pct: z
      .number()
      .min(0)
      .max(500)
      .describe('Markup in percent, applied to material + labour + freight + overheads'),
    grand_total_ex_gst: money('grand_total_ex_gst').describe(
      '(material + labour + freight + overheads) × (1 + markup_pct / 100)',
    ),
  }),
  markdown: z.string().max(8000).describe('The same table in Markdown'),
  questions: questions(1),
});
export type TableResult = z.infer<typeof tableResult>;
export type TableRow = z.infer<typeof tableRow>;
