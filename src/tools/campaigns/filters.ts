import type { ReadFunctionArgs } from '../../contract/catalogue.js';
import { isNoDate, parseDateRange, type DateBounds } from './date-range.js';

/**
 * The structured campaign filters: what the model passed, merged with the thread's
 * active filters, and turned into SQL arguments. Names follow the SQL functions
 * (`channels`); the tools' arguments use the singular (`channel`).
 */
export interface CampaignFilters {
  channels?: string[];
  value_props?: string[];
  sentiments?: string[];
  visual_styles?: string[];
  companies?: string[];
  /** As the model wrote it (`recent`, `2026-05`); resolved on every search. */
  date_range?: string;
  has_offer?: boolean;
}

export type ListDimension = 'channels' | 'value_props' | 'sentiments' | 'visual_styles' | 'companies';
export type Dimension = ListDimension | 'date_range' | 'has_offer';

/** The list dimensions, with the tool argument, the facet name and a label for people. */
export const LIST_DIMENSIONS: readonly { key: ListDimension; arg: string; facet: string; label: string }[] = [
  { key: 'channels', arg: 'channel', facet: 'channel', label: 'Channel' },
  { key: 'value_props', arg: 'value_prop', facet: 'value_prop', label: 'Value prop' },
  { key: 'sentiments', arg: 'sentiment', facet: 'sentiment', label: 'Sentiment' },
  { key: 'visual_styles', arg: 'visual_style', facet: 'visual_style', label: 'Visual style' },
  { key: 'companies', arg: 'company', facet: 'company', label: 'Company' },
];

/** Filter arguments as a tool receives them: `[]` drops that filter, absent keeps the active one. */
export interface FilterArgs {
  channel?: string[];
  value_prop?: string[];
  sentiment?: string[];
  visual_style?: string[];
  company?: string[];
  date_range?: string;
  has_offer?: boolean;
  reset_filters?: boolean;
}

/** The filters of this call: the given ones over the active ones (or over nothing on reset). */
export function mergeFilters(active: CampaignFilters, args: FilterArgs): CampaignFilters {
  const out: CampaignFilters = args.reset_filters ? {} : structuredClone(active);
  for (const d of LIST_DIMENSIONS) {
    const given = args[d.arg as keyof FilterArgs] as string[] | undefined;
    if (given === undefined) continue;
    const values = dedupe(given);
    if (values.length === 0) delete out[d.key];
    else out[d.key] = values;
  }
  if (args.date_range !== undefined) {
    if (isNoDate(args.date_range)) delete out.date_range;
    else out.date_range = args.date_range.trim();
  }
  if (args.has_offer !== undefined) out.has_offer = args.has_offer;
  return out;
}

export function isEmpty(filters: CampaignFilters): boolean {
  return activeDimensions(filters).length === 0;
}

export function activeDimensions(filters: CampaignFilters): Dimension[] {
  const dims: Dimension[] = LIST_DIMENSIONS.filter((d) => (filters[d.key]?.length ?? 0) > 0).map((d) => d.key);
  if (filters.date_range) dims.push('date_range');
  if (filters.has_offer !== undefined) dims.push('has_offer');
  return dims;
}

export function withoutDimension(filters: CampaignFilters, dim: Dimension): CampaignFilters {
  const out = { ...filters };
  delete out[dim];
  return out;
}

export type SqlFilterArgs = Omit<ReadFunctionArgs['filter_campaigns'], 'tenant_id' | 'limit'>;

/** SQL arguments for the filters; a date_range that does not parse is an error for the model. */
export function toSqlArgs(
  filters: CampaignFilters,
  today: Date,
): { ok: true; args: SqlFilterArgs; dates?: DateBounds } | { ok: false; error: string } {
  const args: SqlFilterArgs = {};
  for (const d of LIST_DIMENSIONS) {
    const values = filters[d.key];
    if (values?.length) args[d.key] = values;
  }
  if (filters.has_offer !== undefined) args.has_offer = filters.has_offer;
  if (!filters.date_range) return { ok: true, args };
  const parsed = parseDateRange(filters.date_range, today);
  if (!parsed.ok) return parsed;
  if (parsed.bounds.from) args.date_from = parsed.bounds.from;
  if (parsed.bounds.to) args.date_to = parsed.bounds.to;
  return { ok: true, args, dates: parsed.bounds };
}

/**
 * One short item per active filter, for the context line and the model: "Channel: Email or TV".
 * Without `today`, a date range is shown as written ("Dates: recent").
 */
export function describeFilters(filters: CampaignFilters, today?: Date): string[] {
  const items: string[] = [];
  for (const d of LIST_DIMENSIONS) {
    const values = filters[d.key];
    if (values?.length) items.push(`${d.label}: ${values.join(' or ')}`);
  }
  if (filters.date_range) {
    const parsed = today ? parseDateRange(filters.date_range, today) : undefined;
    items.push(`Dates: ${parsed?.ok ? parsed.bounds.label : filters.date_range}`);
  }
  if (filters.has_offer !== undefined) items.push(filters.has_offer ? 'With an offer' : 'Without an offer');
  return items;
}

/** A dimension's name for people and for suggestions ("the channel filter"). */
export function dimensionLabel(dim: Dimension): string {
  if (dim === 'date_range') return 'date';
  if (dim === 'has_offer') return 'offer';
  return (LIST_DIMENSIONS.find((d) => d.key === dim)?.label ?? dim).toLowerCase();
}

/** The filters as the API reports them (`detectedFilters`), named like the tools' arguments. */
export function detectedFilters(filters: CampaignFilters, dates: DateBounds | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const d of LIST_DIMENSIONS) if (filters[d.key]?.length) out[d.arg] = filters[d.key];
  if (filters.date_range) {
    out.date_range = filters.date_range;
    if (dates?.from) out.date_from = dates.from;
    if (dates?.to) out.date_to = dates.to;
  }
  if (filters.has_offer !== undefined) out.has_offer = filters.has_offer;
  return out;
}

function dedupe(values: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const v of values) {
    const value = v.trim();
    const key = value.toLowerCase();
    if (!value || seen.has(key)) continue;
    seen.add(key);
    out.push(value);
  }
  return out;
}
