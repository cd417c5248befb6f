import { z } from 'zod';
import { DataError } from '../../contract/data.js';
import { materialPriceRow, productRow, supplierComparisonRow } from '../../data/rows.js';
import { defineTool, ToolError, type OfferContext, type ToolContext } from '../../contract/tool.js';
import { money, num, quantity } from './format.js';
import { MODE_OF } from './mode-state.js';
import { FORMS } from './schemas.js';
import { rememberOffers, type Offer } from './state.js';
import { createTenantCache } from '../tenant-cache.js';

/**
 * Catalogue lookups for quoting: thin wrappers over the SQL functions in the migrations.
 * The tenant comes from the platform context, never from the model. Every supplier offer
 * a lookup returns is remembered in the thread, because those are the only prices a
 * PRICE result may carry.
 */

const family = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .describe('stainless, aluminium or mild_steel (synonyms such as "SS" or "aluminum" work)');
const grade = z.string().trim().min(1).max(20).describe('e.g. "304", "316", "5052", "250"');
const thickness = z.number().positive().max(100).describe('Thickness in mm (matched within 0.05 mm)');
const form = z.enum(FORMS);
const limit = (max: number) => z.number().int().min(1).max(max);

/**
 * Whether the tenant has a catalogue at all, cached per tenant for a few minutes: a tenant
 * without products (a marketing team) is not offered quote tools, saving their tokens. Turns that
 * ask at once (a burst after a start or a TTL) share one query instead of each sending its own.
 */
export function createCatalogueCheck(
  ttlMs = 5 * 60_000,
  now: () => number = Date.now,
): (ctx: OfferContext) => Promise<boolean> {
  const known = createTenantCache<boolean>(ttlMs, now);
  return async (ctx) => {
    try {
      return await known.get(ctx.tenant.id, async () => {
        const rows = await ctx.data.call('search_products', { limit: 1 }, productRow.pick({ product_id: true }));
        return rows.length > 0;
      });
    } catch (err) {
      // Not cached (the tenant cache forgets a failed load): the next step asks again.
      ctx.log.warn({ err }, 'catalogue check failed; quote tools not offered on this step');
      return false;
    }
  };
}

/**
 * The three lookups of the PRICE step, offered only there (docs/quotes.md: PRICE's tools) and only to a
 * tenant with a catalogue. A price question in conversation goes through `start_quote` (price),
 * whose emit shows the candidates; keeping ~850 tokens of lookup schemas out of every other
 * request is what keeps a first turn under its 2,000-token budget (bench/tokens.ts).
 */
export function createProductTools(hasCatalogue: (ctx: OfferContext) => Promise<boolean>) {
  const offer = async (ctx: OfferContext) => ctx.state.mode?.name === MODE_OF.price && (await hasCatalogue(ctx));
  return [searchProductsTool, getPricingTool, compareSuppliersTool].map((tool) => ({ ...tool, offer }));
}

const searchProductsTool = defineTool({
  name: 'search_products',
  title: 'Searching the product catalogue',
  description:
    'Search the sheet-metal catalogue (sheet, plate, tube, angle, bar) by words and filters. Returns products with their ' +
    'size, supplier count, price range and shortest lead time. Use get_pricing_for_material for supplier prices.',
  input: z.object({
    query: z.string().trim().max(200).optional().describe('Words that must all appear, e.g. "brushed 1200 x 2400"'),
    family: family.optional(),
    grade: grade.optional(),
    form: form.optional(),
    thickness_mm: thickness.optional(),
    limit: limit(30).optional(),
  }),
  async run(input, ctx) {
    const rows = await lookup(ctx, () =>
      ctx.data.call('search_products', { ...input, limit: input.limit ?? 15 }, productRow),
    );
    if (rows.length === 0) return { content: 'No products match. Try fewer words or filters.', summary: 'no products' };
    const lines = rows.map(
      (p) =>
        `${p.code} (id ${p.product_id}) · ${p.grade} ${p.family} ${p.form}, ${num(p.thickness_mm)} mm, ${p.size_label} · ` +
        (p.min_price === null
          ? 'no supplier price'
          : `${p.supplier_count} suppliers, ${money(p.min_price)}–${money(p.max_price ?? p.min_price)} per ${p.uom ?? 'unit'}, lead from ${p.min_lead_time_days ?? '?'} days`),
    );
    return { content: lines.join('\n'), summary: `${rows.length} products` };
  },
});

const getPricingTool = defineTool({
  name: 'get_pricing_for_material',
  title: 'Looking up supplier prices',
  description:
    'Supplier prices (ex GST) for a material: each matching product with supplier, SKU, unit, price per unit, lead time, ' +
    'delivery cost and minimum order. Give the family and as many of grade, form, thickness and sheet size as you know.',
  input: z.object({
    family,
    grade: grade.optional(),
    form: form.optional(),
    thickness_mm: thickness.optional(),
    width_mm: z.number().positive().optional().describe('Stock sheet width; give with length_mm'),
    length_mm: z.number().positive().optional(),
    limit: limit(50).optional(),
  }),
  async run(input, ctx) {
    const args = { ...input, limit: input.limit ?? 20 };
    const rows = await lookup(ctx, () => ctx.data.call('get_pricing_for_material', args, materialPriceRow));
    if (rows.length === 0) return { content: await noMatch(ctx, input), summary: 'no prices' };
    const offers = rows.map(offerOf);
    rememberOffers(ctx.state, offers);
    return { content: offers.map(offerLine).join('\n'), summary: `${offers.length} supplier prices` };
  },
});

const compareSuppliersTool = defineTool({
  name: 'compare_suppliers',
  title: 'Comparing suppliers',
  description:
    'Ranks the suppliers of each matching product by landed cost for a quantity (price × max(quantity, minimum order) + ' +
    'delivery), marking the cheapest and the fastest. Give a product_id from search_products, or a material spec.',
  input: z.object({
    // A short pattern: z.uuid()'s exported regex alone costs ~200 tokens on every request.
    product_id: z
      .string()
      .regex(/^[0-9a-f-]{36}$/i, { error: 'product_id must be an id from search_products' })
      .optional(),
    family: family.optional(),
    grade: grade.optional(),
    form: form.optional(),
    thickness_mm: thickness.optional(),
    quantity: z.number().positive().max(100_000).optional().describe('Units (sheets or metres) needed; default 1'),
    limit: limit(60).optional(),
  }),
  async run(input, ctx) {
    if (!input.product_id && !input.family && !input.grade && !input.form && input.thickness_mm === undefined) {
      throw new ToolError('Give a product_id or at least one of family, grade, form, thickness_mm.');
    }
    const rows = await lookup(ctx, () =>
      ctx.data.call('compare_suppliers', { ...input, limit: input.limit ?? 30 }, supplierComparisonRow),
    );
    if (rows.length === 0) return { content: await noMatch(ctx, input), summary: 'no suppliers' };
    rememberOffers(ctx.state, rows.map(offerOf));
    const lines = rows.map(
      (r) =>
        `${offerLine(offerOf(r))} · for ${quantity(r.quantity, r.uom)}: ${money(r.total_cost)} landed (rank ${r.price_rank}` +
        `${r.is_cheapest ? ', cheapest' : ''}${r.is_fastest ? ', fastest' : ''})`,
    );
    return { content: lines.join('\n'), summary: `${rows.length} offers compared` };
  },
});

/** Copies only the offer's fields: rows carry more than the thread needs to keep. */
function offerOf(r: Offer): Offer {
  return {
    supplier: r.supplier,
    sku: r.sku,
    uom: r.uom,
    price_per_uom: r.price_per_uom,
    lead_time_days: r.lead_time_days,
    delivery_cost: r.delivery_cost,
    min_order_qty: r.min_order_qty,
    code: r.code,
    family: r.family,
    grade: r.grade,
    form: r.form,
    thickness_mm: r.thickness_mm,
    size_label: r.size_label,
  };
}

/** What the model reads: every field it must copy into a candidate, exactly. */
function offerLine(o: Offer): string {
  return (
    `supplier "${o.supplier}" · sku ${o.sku} · ${o.grade} ${o.family} ${o.form} ${num(o.thickness_mm)} mm, ${o.size_label} · ` +
    `${money(o.price_per_uom)} per ${o.uom} (price_per_uom ${o.price_per_uom}) · lead ${o.lead_time_days} days · ` +
    `delivery ${o.delivery_cost}${o.min_order_qty > 1 ? ` · min order ${num(o.min_order_qty)} ${o.uom}` : ''}`
  );
}

/** An empty result says which thicknesses exist, so the model can offer the nearest instead of guessing. */
async function noMatch(
  ctx: ToolContext,
  spec: {
    family?: string | undefined;
    grade?: string | undefined;
    form?: string | undefined;
    thickness_mm?: number | undefined;
  },
): Promise<string> {
  const none = 'No supplier prices match. Report the price as missing; do not estimate it.';
  const { thickness_mm: asked, family, grade, form } = spec;
  if (asked === undefined || !family) return none;
  const rows = await lookup(ctx, () =>
    ctx.data.call('search_products', { family, grade, form, limit: 100 }, productRow),
  );
  const stocked = [...new Set(rows.filter((r) => r.supplier_count > 0).map((r) => r.thickness_mm))].sort(
    (a, b) => a - b,
  );
  if (stocked.length === 0) return none;
  return (
    `No supplier prices at ${num(asked)} mm. This material is stocked in ${stocked.map((t) => `${num(t)} mm`).join(', ')}. ` +
    'Report the asked thickness as missing; you may price the nearest stocked thickness and say so.'
  );
}

/** The database's own wording is for logs; the model gets a sentence it can act on. */
async function lookup<T>(ctx: ToolContext, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof DataError && err.code === 'invalid_input') {
      ctx.log.warn({ err, fn: err.fn }, 'catalogue lookup rejected');
      throw new ToolError(
        'The catalogue rejected those filters. Check the values (numbers in mm, a product_id from search_products).',
      );
    }
    throw err;
  }
}
