import { z } from 'zod';
import { DATE_RANGE_HELP, isDateRange, isNoDate } from './date-range.js';

/**
 * The tools' argument schemas. Every property costs prompt tokens on every request, so
 * descriptions are short and the limits that JSON Schema strict mode cannot carry
 * (string lengths) live here in zod, checked when the arguments arrive: a value over a
 * limit goes back to the model as a fixable error, never to SQL.
 */

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 50;
export const MAX_QUERY_CHARS = 1_000;
const MAX_VALUES = 10;
const MAX_VALUE_CHARS = 80;

const values = (description?: string) => {
  const list = z
    .array(z.string().max(MAX_VALUE_CHARS, `at most ${MAX_VALUE_CHARS} characters a value`))
    // A refinement, not .max(): maxItems would cost tokens in every request's schema.
    .refine((items) => items.length <= MAX_VALUES, { error: `at most ${MAX_VALUES} values` })
    .optional();
  return description ? list.describe(description) : list;
};

const dateRange = z
  .string()
  .max(40)
  .refine((s) => isNoDate(s) || isDateRange(s), { error: DATE_RANGE_HELP })
  .optional();
const resetFilters = z.boolean().optional();
/** A count from 1 to `max`; the bound is checked here, not sent (minimum/maximum cost tokens in every schema). */
export const count = (max: number) =>
  // Not .int(): zod exports it as ±2^53 bounds. The integer check is in the refinement.
  z.number().refine((n) => Number.isInteger(n) && n >= 1 && n <= max, { error: `a whole number from 1 to ${max}` });
const limit = count(MAX_LIMIT).optional();

/**
 * The filters the search tools take. They are described once, in filter_campaigns (which
 * the model sees in the same request), to save tokens; how they merge with the thread's
 * active filters is said in the system context when there are any (activeFiltersContext).
 * Value prop, sentiment and style are filter_campaigns' alone (a search applies the thread's
 * active ones): three fewer fields in two schemas on every request.
 */
const searchFilterFields = {
  channel: values(),
  date_range: dateRange,
  reset_filters: resetFilters,
  limit,
};

export const query = (description: string) =>
  z
    .string()
    .min(1)
    .max(
      MAX_QUERY_CHARS,
      `The query is too long (over ${MAX_QUERY_CHARS} characters): use the key words or a short phrase.`,
    )
    .describe(description);

export const filterInput = z.object({
  channel: values('e.g. Email, TV'),
  value_prop: values('e.g. Cash Back, Premium'),
  sentiment: values('e.g. Playful'),
  visual_style: values('e.g. Minimalist'),
  company: values('Companies or brands'),
  date_range: dateRange.describe('recent (90 days), last_30_days, this_year, 2026-05, 2026-01-01..2026-03-31, any'),
  has_offer: z.boolean().optional(),
  reset_filters: resetFilters.describe("Ignore earlier searches' filters"),
  limit: limit.describe(`Default ${DEFAULT_LIMIT}, max ${MAX_LIMIT}`),
});

/**
 * filter_campaigns' filters without their descriptions, for aggregate_campaigns: the model sees
 * both tools in one request, so the descriptions are said once (in filter_campaigns).
 */
export const plainFilterFields = {
  channel: values(),
  value_prop: values(),
  sentiment: values(),
  visual_style: values(),
  company: values(),
  date_range: dateRange,
  has_offer: z.boolean().optional(),
  reset_filters: resetFilters,
};

export const semanticInput = z.object({
  query: query('The idea or theme'),
  embedding_field: z.enum(['full', 'campaign_text']).optional().describe('campaign_text: ad copy only; default full'),
  ...searchFilterFields,
});

export const fullTextInput = z.object({
  query: query('Words or phrases: "exact phrase", -exclude, OR'),
  ...searchFilterFields,
});

export type FilterInput = z.infer<typeof filterInput>;
