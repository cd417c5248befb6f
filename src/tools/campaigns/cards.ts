import type { Block, Button, Card } from '../../reply/model.js';
import { clipWords as clip } from '../../reply/text.js';
import { snippetOf, type Campaign } from './result.js';

/**
 * Campaign results as neutral reply blocks: a page of cards, the buttons (Show more,
 * Clear filters, follow-up suggestions) and a context line with the active filters.
 * Every adapter renders these, so Slack, Discord, HTTP and the console show the same.
 */

export const PAGE_SIZE = 5;
export const MORE_ACTION = 'campaigns.more';
export const CLEAR_ACTION = 'campaigns.clear';
const BODY_CHARS = 220;
const LABEL_CHARS = 70;

export function campaignCard(c: Campaign): Card {
  const fields = [
    ...(c.offer ? [{ label: 'Offer', value: clip(c.offer, 150) }] : []),
    ...(c.key_value_props.length ? [{ label: 'Value props', value: clip(c.key_value_props.join(', '), 150) }] : []),
    ...(c.imagery_sentiment || c.imagery_visual_style
      ? [
          {
            label: 'Sentiment · style',
            value: [c.imagery_sentiment, c.imagery_visual_style].filter(Boolean).join(' · '),
          },
        ]
      : []),
  ];
  return {
    title: clip(c.brand && c.brand !== c.company ? `${c.company} · ${c.brand}` : c.company, 120),
    subtitle: `${clip(c.channel, 40)} · ${c.capture_date}`,
    fields,
    body: balancedBold(clip(snippetOf(c, { keepBold: true }), BODY_CHARS)),
  };
}

export interface PageOptions {
  campaigns: Campaign[];
  /** Index of the first campaign on this page. */
  offset: number;
  resultId: string;
  filterLabels: string[];
  /** Whether the thread has active filters to clear (now, not when the search ran). */
  canClear: boolean;
  suggestions?: string[];
}

/** One page of cards with its buttons and context line; no cards when there are none. */
export function campaignPage(opts: PageOptions): Block[] {
  const { campaigns, offset } = opts;
  const page = campaigns.slice(offset, offset + PAGE_SIZE);
  const next = offset + page.length;
  const blocks: Block[] = [];
  if (page.length) blocks.push({ type: 'cards', cards: page.map(campaignCard) });

  const buttons: Button[] = [];
  if (next < campaigns.length) {
    buttons.push({
      actionId: MORE_ACTION,
      label: `Show more (${campaigns.length - next} left)`,
      value: `${opts.resultId}:${next}`,
    });
  }
  if (opts.canClear) buttons.push({ actionId: CLEAR_ACTION, label: 'Clear filters', value: opts.resultId });
  (opts.suggestions ?? [])
    .slice(0, 3)
    .forEach((s, i) => buttons.push({ actionId: `suggest.${i + 1}`, label: clip(s, LABEL_CHARS), value: s }));
  if (buttons.length) blocks.push({ type: 'buttons', buttons });

  const context: string[] = [];
  if (page.length) context.push(`Showing ${offset + 1}–${next} of ${campaigns.length}`);
  if (opts.filterLabels.length) context.push(`Filters: ${opts.filterLabels.join(' · ')}`);
  if (context.length) blocks.push({ type: 'context', items: context });
  return blocks;
}

/** A snippet cut inside `**bold**` would leave a dangling marker: drop the unmatched one. */
function balancedBold(text: string): string {
  const marks = text.split('**').length - 1;
  if (marks % 2 === 0) return text;
  const at = text.lastIndexOf('**');
  return text.slice(0, at) + text.slice(at + 2);
}
