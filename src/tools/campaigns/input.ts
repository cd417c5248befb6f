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
const limit = z.number().int().min(1).max(MAX_LIMIT).optional();

/**
 * The filters the search tools share. They are described once, in filter_campaigns (which
 * the model sees in the same request), to save tokens; how they merge with the thread's
 * active filters is said in the system context when there are any (activeFiltersContext).
 */
const searchFilterFields = {
  channel: values(),
  value_prop: values(),
  sentiment: values(),
  visual_style: values(),
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
  channel: values('e.g. Email, Instagram, TV'),
  value_prop: values('e.g. Cash Back, Premium, Low Price'),
  sentiment: values('e.g. Playful, Trustworthy'),
  visual_style: values('e.g. Minimalist, Bold Typography'),
  company: values('Company or brand names'),
  date_range: dateRange.describe('recent (90 days), last_30_days, this_year, 2026-05, 2026-01-01..2026-03-31, or any'),
  has_offer: z.boolean().optional().describe('true: only campaigns with an offer'),
  reset_filters: resetFilters.describe("Ignore earlier searches' filters"),
  limit: limit.describe(`Default ${DEFAULT_LIMIT}`),
});

export const semanticInput = z.object({
  query: query('The idea or theme, in a few words'),
  embedding_field: z
    .enum(['full', 'campaign_text'])
    .optional()
    .describe('campaign_text: match the ad copy only; default full (company, offer, props and copy)'),
  ...searchFilterFields,
});

export const fullTextInput = z.object({
  query: query('Words or phrases: "exact phrase", -exclude, OR'),
  ...searchFilterFields,
});

export type FilterInput = z.infer<typeof filterInput>;
