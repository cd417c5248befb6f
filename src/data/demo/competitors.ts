import { DEMO_DEFAULT_CAMPAIGN_KEY } from './campaigns.js';
import { COMPETITOR_PROFILES, type CompetitorProfile } from './competitor-profiles.js';

/** A competitor as the importer accepts it. */
export interface CompetitorInput {
  key: string;
  display_name: string;
  full_description: string;
  campaign_key?: string;
}

const bullets = (items: readonly string[]) =>
  items.map((s) => `- ${s.charAt(0).toUpperCase()}${s.slice(1)}.`).join('\n');

/**
 * The full description the competitor tool injects into the thread: a briefing the
 * responder can use as is (1,500–3,000 characters).
 */
export function competitorDescription(p: CompetitorProfile): string {
  return [
    `${p.name}: competitor briefing`,
    'Demo profile: illustrative content for testing, not verified market information.',
    `Market: ${p.market}.`,
    `Overview\n${p.summary}`,
    `What they sell\n${p.offering}`,
    `Strengths\n${bullets(p.strengths)}`,
    `Weaknesses\n${bullets(p.weaknesses)}`,
    `How they market themselves\n${p.messaging}`,
    `Who they win\n${p.audience}`,
    `How to position against ${p.name}\n${bullets(p.counter)}`,
    `Common customer remarks\n` +
      `- "${p.name} is cheaper": ask which price they compared (first month, monthly fee or total yearly cost) and ` +
      `compare the same thing; a known weak spot: ${p.weaknesses[0]}.\n` +
      `- "I am happy with ${p.name}": acknowledge it, ask what they value most, and offer one concrete difference ` +
      `rather than a list.`,
    `Questions worth asking\n` +
      `- What made you choose ${p.name} in the first place?\n` +
      '- Which matters most to you: the price, the service, or how the product fits the rest of your household?\n' +
      '- When did you last compare what you pay over a whole year, fees included?',
    `Tone\nStay factual and respectful. Never disparage ${p.name}, never quote their prices as current facts, and ` +
      "suggest the customer checks any figure on the competitor's own website.",
  ].join('\n\n');
}

export function demoCompetitors(): CompetitorInput[] {
  return COMPETITOR_PROFILES.map((p) => ({
    key: p.key,
    display_name: p.name,
    full_description: competitorDescription(p),
    ...(p.campaign ? { campaign_key: DEMO_DEFAULT_CAMPAIGN_KEY } : {}),
  }));
}
