import { createHash } from 'node:crypto';
import { z } from 'zod';

/**
 * What each importable table accepts, one zod schema per table. Rows arrive from CSV
 * (every value a string) or JSONL (typed values), so scalars are coerced, lists accept a
 * JSON array or `a; b; c`, and JSON columns accept JSON text. Unknown columns are
 * errors. `key` is the natural key that makes a re-import update instead of duplicate.
 */

const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `at most ${max} characters`);
const optText = (max: number) => text(max).optional();
const slug = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'lowercase letters, digits, "-" and "_" only (max 63)');

const number = z.coerce.number({ error: 'expected a number' }).refine(Number.isFinite, 'expected a number');
const positive = number.refine((n) => n > 0, 'must be greater than 0');
const nonNegative = number.refine((n) => n >= 0, 'must not be negative');
const wholeNonNegative = z.coerce
  .number({ error: 'expected a whole number' })
  .int('expected a whole number')
  .min(0, 'must not be negative');

/** `["a","b"]` (JSON) or `a; b; c` / `a | b` (CSV-friendly). */
const textList = z.preprocess(
  (v) => {
    if (typeof v !== 'string') return v;
    const s = v.trim();
    if (s.startsWith('[')) {
      try {
        return JSON.parse(s) as unknown;
      } catch {
        return v;
      }
    }
    return s.split(/\s*[;|]\s*/).filter((x) => x !== '');
  },
  z.array(text(200), { error: 'expected a list: a JSON array or values separated by ";"' }).max(50),
);

/** JSON columns: parsed JSON from JSONL, JSON text from CSV. */
const json = <T extends z.ZodType>(inner: T) =>
  z.preprocess((v, ctx) => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'expected JSON' });
      return z.NEVER;
    }
  }, inner);

const isoDate = z.iso.date({ error: 'expected a date as YYYY-MM-DD' });
const isoDateTime = z.iso.datetime({ offset: true, error: 'expected an ISO 8601 date-time with a time zone' });

const timezone = z
  .string()
  .trim()
  .refine((tz) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  }, 'expected an IANA time zone such as Europe/Copenhagen');

const topic = text(100).transform((t) =>
  t
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, ''),
);

const FAMILY: Record<string, 'stainless' | 'aluminium' | 'mild_steel'> = {
  stainless: 'stainless',
  'stainless steel': 'stainless',
  ss: 'stainless',
  aluminium: 'aluminium',
  aluminum: 'aluminium',
  mild_steel: 'mild_steel',
  'mild steel': 'mild_steel',
  steel: 'mild_steel',
};
const family = z.preprocess(
  (v) => (typeof v === 'string' ? (FAMILY[v.trim().toLowerCase()] ?? v) : v),
  z.enum(['stainless', 'aluminium', 'mild_steel'], { error: 'expected stainless, aluminium or mild_steel' }),
);
const form = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
  z.enum(['sheet', 'plate', 'tube', 'angle', 'bar'], { error: 'expected sheet, plate, tube, angle or bar' }),
);

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected HH:MM');
const interval = z.strictObject({ open: hhmm, close: hhmm });
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
const workingHours = z.partialRecord(z.enum(DAYS), z.array(interval).max(6));
const service = z.strictObject({
  name: text(200),
  description: optText(2000),
  duration_minutes: z.number().int().positive().optional(),
  price: z.number().nonnegative().optional(),
  category: optText(100),
});

const schemas = {
  campaigns: z.strictObject({
    source_key: optText(200),
    company: text(200),
    brand: optText(200),
    channel: text(100),
    offer: optText(1000),
    key_value_props: textList.optional(),
    imagery_sentiment: optText(100),
    imagery_visual_style: optText(100),
    capture_date: isoDate,
    campaign_text: text(20_000),
    full_campaign_text: optText(100_000),
  }),
  competitors: z.strictObject({
    key: slug,
    display_name: text(200),
    full_description: text(20_000),
    campaign_key: optText(200),
  }),
  products: z.strictObject({
    code: optText(100),
    family,
    grade: text(20),
    form,
    finish: optText(50),
    thickness_mm: positive,
    width_mm: positive.optional(),
    length_mm: positive.optional(),
    size_label: optText(100),
    description: optText(2000),
    mass_kg: positive.optional(),
  }),
  supplier_prices: z.strictObject({
    product_code: text(100),
    supplier: text(200),
    sku: text(100),
    uom: z.enum(['sheet', 'kg', 'm', 'each'], { error: 'expected sheet, kg, m or each' }),
    price_per_uom: nonNegative,
    lead_time_days: wholeNonNegative,
    delivery_cost: nonNegative.optional(),
    min_order_qty: positive.optional(),
    notes: optText(1000),
  }),
  businesses: z.strictObject({
    slug,
    name: text(200),
    industry: optText(100),
    phone: optText(50),
    email: z.email({ error: 'expected an email address' }).optional(),
    address: optText(500),
    website: z.url({ error: 'expected a URL' }).optional(),
    timezone: timezone.optional(),
    services: json(z.array(service).max(200)).optional(),
    working_hours: json(workingHours).optional(),
  }),
  bookings: z.strictObject({
    reference: text(50),
    business_slug: slug.optional(),
    customer_name: text(200),
    customer_phone: optText(50),
    customer_email: z.email({ error: 'expected an email address' }).optional(),
    service: text(200),
    booking_datetime: isoDateTime,
    duration_minutes: z.coerce.number().int('expected a whole number').positive().optional(),
    status: z.enum(['pending', 'confirmed', 'completed', 'cancelled', 'no_show'], {
      error: 'expected pending, confirmed, completed, cancelled or no_show',
    }),
    price: nonNegative.optional(),
    customer_notes: optText(2000),
    internal_notes: optText(2000),
  }),
  policies: z.strictObject({
    business_slug: slug.optional(),
    topic,
    title: text(200),
    content: text(10_000),
  }),
  faqs: z.strictObject({
    business_slug: slug.optional(),
    topic,
    question: text(500),
    answer: text(5_000),
    tags: textList.optional(),
  }),
  tenants: z.strictObject({
    slug,
    name: text(200),
    settings: json(z.record(z.string(), z.unknown())).optional(),
    business_slug: slug.optional(),
    default_campaign_key: optText(200),
  }),
  tenant_workspaces: z.strictObject({
    platform: z.enum(['slack', 'discord', 'http', 'console'], { error: 'expected slack, discord, http or console' }),
    workspace_id: text(200),
  }),
};

export type ImportTable = keyof typeof schemas;
export const IMPORT_TABLES = Object.keys(schemas) as ImportTable[];
export type ImportRow<T extends ImportTable> = z.input<(typeof schemas)[T]>;

export function isImportTable(name: string): name is ImportTable {
  return Object.hasOwn(schemas, name);
}

export function tableSchema(table: ImportTable): z.ZodObject {
  return schemas[table];
}

export function tableColumns(table: ImportTable): string[] {
  return Object.keys(schemas[table].shape);
}

const hash = (...parts: (string | number | undefined)[]) =>
  createHash('sha1')
    .update(parts.map((p) => p ?? '').join('\u001f'))
    .digest('hex')
    .slice(0, 32);

function trimNumber(n: number): string {
  return String(Math.round(n * 100) / 100);
}

/** Fills derived fields (campaign source_key, product code and size label). */
function complete(table: ImportTable, row: Record<string, unknown>): Record<string, unknown> {
  if (table === 'campaigns' && row.source_key === undefined) {
    const r = row as z.output<typeof schemas.campaigns>;
    return { ...row, source_key: `h:${hash(r.company, r.brand, r.channel, r.capture_date, r.campaign_text)}` };
  }
  if (table === 'products') {
    const r = row as z.output<typeof schemas.products>;
    const size = r.width_mm && r.length_mm ? `${trimNumber(r.width_mm)}x${trimNumber(r.length_mm)}` : undefined;
    return {
      ...row,
      code:
        r.code ??
        [r.family, r.grade, r.form, r.finish, trimNumber(r.thickness_mm), size].filter(Boolean).join('-').toUpperCase(),
      size_label: r.size_label ?? (size ? `${size.replace('x', ' x ')} mm` : `${trimNumber(r.thickness_mm)} mm`),
    };
  }
  return row;
}

/** The natural key of a validated row. */
export function naturalKey(table: ImportTable, row: Record<string, unknown>): string {
  const s = (k: string) => String(row[k] ?? '');
  switch (table) {
    case 'campaigns':
      return s('source_key');
    case 'competitors':
      return s('key');
    case 'products':
      return s('code');
    case 'supplier_prices':
      return `${s('supplier')} / ${s('sku')}`;
    case 'businesses':
    case 'tenants':
      return s('slug');
    case 'bookings':
      return s('reference').toUpperCase();
    case 'policies':
      return `${s('business_slug')} / ${s('topic')}`;
    case 'faqs':
      return `${s('business_slug')} / ${s('question')}`;
    case 'tenant_workspaces':
      return `${s('platform')} / ${s('workspace_id')}`;
  }
}

export type RowCheck = { ok: true; row: Record<string, unknown> } | { ok: false; message: string };

/** Validates one raw record (blank values count as absent) and completes derived fields. */
export function checkRow(table: ImportTable, raw: Record<string, unknown>): RowCheck {
  const cleaned: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === null || (typeof v === 'string' && v.trim() === '')) continue;
    cleaned[k] = v;
  }
  const parsed = schemas[table].safeParse(cleaned);
  if (!parsed.success) {
    const message = parsed.error.issues
      .slice(0, 3)
      .map((i) => {
        if (i.code === 'unrecognized_keys') return `unknown column(s): ${i.keys.join(', ')}`;
        const where = i.path.join('.') || 'row';
        // zod words a missing column as a type error; say what it means.
        if (i.code === 'invalid_type' && i.path.length === 1 && !(String(i.path[0]) in cleaned)) {
          return `${where}: is required`;
        }
        return `${where}: ${i.message}`;
      })
      .join('; ');
    return { ok: false, message };
  }
  return { ok: true, row: complete(table, parsed.data as Record<string, unknown>) };
}
