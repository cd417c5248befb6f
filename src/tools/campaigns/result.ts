import { countTokens } from '../../contract/tokens.js';
import type { CampaignRow } from '../../data/rows.js';
import { clipWords as clip } from '../../reply/text.js';

/** A campaign as the tools return it: the row, plus the score of the search that found it. */
export type Campaign = CampaignRow & { similarity?: number; rank?: number; snippet?: string };

/**
 * The one result shape of all three campaign tools:
 * - `count`: how many campaigns the search returned;
 * - `summary_for_llm`: one line per campaign (at most 20, within a token budget) with
 *   what a user asks about: company, brand, channel, date, offer, value props,
 *   sentiment, style and a snippet; "…and N more" when cut;
 * - `campaigns`: the full rows, for cards, paging and API clients. Never sent to the model.
 */
export interface CampaignResult {
  count: number;
  summary_for_llm: string;
  campaigns: Campaign[];
}

export const SUMMARY_MAX_LINES = 20;
/** What one tool result may cost the model, header included. */
export const RESULT_MAX_TOKENS = 1_500;
/** The summary's own default budget, leaving room for a header. */
export const SUMMARY_MAX_TOKENS = 1_400;
const SNIPPET_CHARS = 90;
const OFFER_CHARS = 90;
const NAME_CHARS = 60;
const PROPS_MAX = 4;

export function buildCampaignResult(
  campaigns: Campaign[],
  opts: { maxLines?: number; maxTokens?: number } = {},
): CampaignResult {
  const maxLines = opts.maxLines ?? SUMMARY_MAX_LINES;
  const maxTokens = opts.maxTokens ?? SUMMARY_MAX_TOKENS;
  const lines: string[] = [];
  let tokens = 0;
  for (const [i, campaign] of campaigns.slice(0, maxLines).entries()) {
    const line = summaryLine(campaign, i + 1);
    const cost = countTokens(line) + 1;
    // The "and N more" tail needs a few tokens of its own.
    if (tokens + cost > maxTokens - 12) break;
    lines.push(line);
    tokens += cost;
  }
  const rest = campaigns.length - lines.length;
  if (rest > 0) lines.push(`…and ${rest} more not listed here.`);
  return { count: campaigns.length, summary_for_llm: lines.join('\n'), campaigns };
}

/** `3. Northpeak Credit / Northpeak Cashback | Email | 2026-10-02 | Offer: … | Props: … | Playful, Minimalist | "…"` */
export function summaryLine(c: Campaign, n: number): string {
  const name =
    c.brand && c.brand !== c.company
      ? `${clip(c.company, NAME_CHARS)} / ${clip(c.brand, NAME_CHARS)}`
      : clip(c.company, NAME_CHARS);
  const props = c.key_value_props
    .slice(0, PROPS_MAX)
    .map((p) => clip(p, 30))
    .join(', ');
  const look = [c.imagery_sentiment, c.imagery_visual_style]
    .filter(Boolean)
    .map((s) => clip(s ?? '', 30))
    .join(', ');
  const parts = [
    `${n}. ${name}`,
    clip(c.channel, 30),
    c.capture_date,
    `Offer: ${c.offer ? clip(c.offer, OFFER_CHARS) : 'none'}`,
    ...(props ? [`Props: ${props}`] : []),
    ...(look ? [look] : []),
    ...(c.similarity !== undefined ? [`sim ${c.similarity.toFixed(2)}`] : []),
    `"${clip(snippetOf(c), SNIPPET_CHARS)}"`,
  ];
  return parts.join(' | ');
}

/** The text to show for a campaign: the search's snippet, else the ad copy without its "Brand: " lead. */
export function snippetOf(c: Campaign, opts: { keepBold?: boolean } = {}): string {
  if (c.snippet) return opts.keepBold ? c.snippet : c.snippet.replaceAll('**', '');
  const text = c.campaign_text || c.full_campaign_text;
  for (const lead of [c.brand, c.company]) {
    if (lead && text.startsWith(`${lead}: `)) return text.slice(lead.length + 2);
  }
  return text;
}

export interface ContentMeta {
  order: string;
  limitReached: boolean;
  filters: string[];
  notes: string[];
  shownAsCards: boolean;
}

/**
 * The result and what the model reads: a header (count, order, filters, notes) and the
 * summary, which gets whatever the header leaves of the result budget.
 */
export function campaignToolResult(
  campaigns: Campaign[],
  meta: ContentMeta,
): { result: CampaignResult; content: string } {
  const header = resultHeader(campaigns.length, meta);
  const result = buildCampaignResult(campaigns, { maxTokens: RESULT_MAX_TOKENS - countTokens(header) - 1 });
  return { result, content: [header, result.summary_for_llm].filter(Boolean).join('\n') };
}

function resultHeader(count: number, meta: ContentMeta): string {
  const head =
    count === 0
      ? 'No campaigns matched.'
      : `${count} campaign${count === 1 ? '' : 's'}${meta.limitReached ? ' (the limit; more may match)' : ''}, ${meta.order}.`;
  return [
    head,
    meta.filters.length ? `Filters: ${clip(meta.filters.join('; '), 400)}.` : 'No filters.',
    ...(meta.shownAsCards ? ['The user sees them as cards; do not list them all again.'] : []),
    ...meta.notes.map((n) => clip(n, 400)),
  ].join(' ');
}
