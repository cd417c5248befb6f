import { z } from 'zod';
import { nullableText, text, uuid } from './fields.js';

/** The metals catalogue behind quotes: products, suppliers' offers and their comparison. */

const productFields = {
  product_id: uuid,
  code: text,
  family: z.enum(['stainless', 'aluminium', 'mild_steel']),
  grade: text,
  form: z.enum(['sheet', 'plate', 'tube', 'angle', 'bar']),
  thickness_mm: z.number(),
  size_label: text,
};

export const productRow = z.object({
  ...productFields,
  finish: nullableText,
  width_mm: z.number().nullable(),
  length_mm: z.number().nullable(),
  description: text,
  mass_kg: z.number().nullable(),
  supplier_count: z.number().int(),
  min_price: z.number().nullable(),
  max_price: z.number().nullable(),
  uom: nullableText,
  min_lead_time_days: z.number().int().nullable(),
});

const offerFields = {
  supplier: text,
  sku: text,
  uom: z.enum(['sheet', 'kg', 'm', 'each']),
  price_per_uom: z.number(),
  lead_time_days: z.number().int(),
  delivery_cost: z.number(),
  min_order_qty: z.number(),
};

export const materialPriceRow = z.object({
  ...productFields,
  ...offerFields,
  finish: nullableText,
  width_mm: z.number().nullable(),
  length_mm: z.number().nullable(),
  notes: nullableText,
});

export const supplierComparisonRow = z.object({
  ...productFields,
  ...offerFields,
  quantity: z.number(),
  total_cost: z.number(),
  price_rank: z.number().int(),
  is_cheapest: z.boolean(),
  is_fastest: z.boolean(),
});
