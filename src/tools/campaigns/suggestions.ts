import { dimensionLabel, type CampaignFilters, type Dimension } from './filters.js';
import { clipWords as clip } from '../../reply/text.js';
import type { Campaign } from './result.js';

/**
 * Two or three follow-up questions, phrased as the user would ask them: a suggestion
 * button posts its text as the user's next message. Built from the result itself (no
 * model call), so they are cheap, predictable and always about what is on screen.
 */

export type SearchKind = 'semantic' | 'filter' | 'text';

export interface Relaxation {
  /** The filter dropped. */
  dimension: Dimension;
  /** Campaigns found without it (capped at the probe's limit). */
  count: number;
  capped: boolean;
}

export function followUps(opts: {
  kind: SearchKind;
  query?: string;
  filters: CampaignFilters;
  campaigns: Campaign[];
  relaxations: Relaxation[];
}): string[] {
  const { campaigns, filters } = opts;
  const out: string[] = [];
  if (campaigns.length === 0) {
    const helpful = opts.relaxations.filter((r) => r.count > 0).sort((a, b) => b.count - a.count);
    for (const r of helpful.slice(0, 2)) out.push(`Same search without the ${dimensionLabel(r.dimension)} filter`);
    if (opts.kind === 'text' && opts.query) out.push(`Find campaigns about ${clip(opts.query, 50)}`);
    if (out.length < 2) out.push('Show the most recent campaigns');
    return unique(out).slice(0, 3);
  }

  const channels = counts(campaigns.map((c) => c.channel));
  if (!filters.channels?.length && channels.length > 1) out.push(`Only the ${channels[0]} ones`);
  if (!filters.date_range) out.push('Only the last 30 days');
  const withOffer = campaigns.filter((c) => c.offer).length;
  if (withOffer > 1) out.push('What are the main offers here?');
  if (filters.has_offer === undefined && withOffer > 0 && withOffer < campaigns.length)
    out.push('Only the ones with an offer');
  if (counts(campaigns.map((c) => c.company)).length > 1) out.push('Which companies run most of these?');
  return unique(out).slice(0, 3);
}

/** Distinct values, most frequent first. */
function counts(values: string[]): string[] {
  const tally = new Map<string, number>();
  for (const v of values) tally.set(v, (tally.get(v) ?? 0) + 1);
  return [...tally.entries()].sort((a, b) => b[1] - a[1]).map(([v]) => v);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
