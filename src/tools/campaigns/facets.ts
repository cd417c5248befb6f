import { cacheGet, cacheSet } from '../../contract/thread-state.js';
import { campaignFacetRow } from '../../data/rows.js';
import type { OfferContext } from '../../contract/tool.js';
import { LIST_DIMENSIONS, type CampaignFilters, type ListDimension } from './filters.js';
import { cleanText } from './query-text.js';

/**
 * The values the tenant's campaigns actually use per dimension, most common first. The
 * tools' schemas take free text (an enum of every value would cost hundreds of tokens on
 * every request); instead the model's values are mapped onto these ("cash-back" →
 * "Cash Back", "emails" → "Email"), and a value nothing uses comes back to the model
 * with the known ones, so it can correct itself.
 */
export type Facets = Record<string, string[]>;

const CACHE_KEY = 'campaigns:facets';
const CACHE_MS = 10 * 60_000;

export async function loadFacets(ctx: Pick<OfferContext, 'data' | 'tenant' | 'state'>, now: number): Promise<Facets> {
  const cached = cacheGet<Facets>(ctx.state, CACHE_KEY, now);
  if (cached) return cached;
  const rows = await ctx.data.call('list_campaign_facets', {}, campaignFacetRow);
  const facets: Facets = {};
  for (const row of rows) (facets[row.facet] ??= []).push(row.value);
  cacheSet(ctx.state, CACHE_KEY, facets, CACHE_MS, now);
  return facets;
}

export interface UnknownValues {
  dimension: ListDimension;
  values: string[];
  /** The most common known values, for the hint. */
  known: string[];
  /** Values another filter knows: `"Premium" is a value_prop`. */
  elsewhere: string[];
}

export interface ResolvedFilters {
  /** The filters with each value in its canonical spelling; unknown values removed. */
  filters: CampaignFilters;
  unknown: UnknownValues[];
  /** Dimensions whose every value was unknown: nothing can match them. */
  impossible: ListDimension[];
}

/** Companies are also matched by brand in SQL, which has no facet: unknown ones pass through. */
const PASS_THROUGH: ReadonlySet<ListDimension> = new Set(['companies']);

export function resolveFilterValues(filters: CampaignFilters, facets: Facets): ResolvedFilters {
  const out: CampaignFilters = { ...filters };
  const unknown: UnknownValues[] = [];
  const impossible: ListDimension[] = [];
  for (const d of LIST_DIMENSIONS) {
    const values = filters[d.key];
    if (!values?.length) continue;
    const known = facets[d.facet] ?? [];
    const byKey = new Map(known.map((v) => [matchKey(v), v]));
    const resolved: string[] = [];
    const missing: string[] = [];
    for (const value of values) {
      const hit = lookup(byKey, matchKey(value));
      if (hit) resolved.push(hit);
      else if (PASS_THROUGH.has(d.key)) resolved.push(cleanText(value));
      else if (value.includes('/')) {
        // Another taxonomy's combined label ("Cash Back / Rewards"): its parts may be ours.
        for (const part of value.split('/')) {
          const partHit = lookup(byKey, matchKey(part));
          if (partHit) resolved.push(partHit);
          else if (part.trim()) missing.push(part.trim());
        }
      } else missing.push(value);
    }
    if (missing.length) {
      unknown.push({
        dimension: d.key,
        values: missing,
        known: known.slice(0, 25),
        elsewhere: otherDimensions(missing, d.key, facets),
      });
    }
    const unique = [...new Set(resolved)];
    if (unique.length) out[d.key] = unique;
    else {
      delete out[d.key];
      impossible.push(d.key);
    }
  }
  return { filters: out, unknown, impossible };
}

function otherDimensions(values: string[], own: ListDimension, facets: Facets): string[] {
  const out: string[] = [];
  for (const value of values) {
    for (const other of LIST_DIMENSIONS) {
      if (other.key === own) continue;
      const hit = lookup(new Map((facets[other.facet] ?? []).map((v) => [matchKey(v), v])), matchKey(value));
      if (hit) out.push(`"${hit}" is a ${other.arg}`);
    }
  }
  return out;
}

function matchKey(value: string): string {
  return cleanText(value)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

function lookup(byKey: Map<string, string>, key: string): string | undefined {
  if (!key) return undefined;
  return byKey.get(key) ?? (key.endsWith('s') ? byKey.get(key.slice(0, -1)) : undefined) ?? byKey.get(`${key}s`);
}
