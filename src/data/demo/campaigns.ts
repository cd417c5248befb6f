import {
  CHANNEL_CLOSERS,
  CHANNELS,
  COMPANIES,
  HEADLINES,
  OFFER_SLOTS,
  OFFERS,
  PROP_LINES,
  SENTIMENTS,
  TERMS,
  VALUE_PROPS,
  VISUAL_STYLES,
  type Company,
} from './campaign-vocab.js';
import { createRng, daysBefore, fill, type Rng } from './prng.js';

/** A campaign as the importer accepts it (`npm run import -- campaigns file.jsonl`). */
export interface CampaignInput {
  source_key: string;
  company: string;
  brand: string;
  channel: string;
  offer?: string;
  key_value_props: string[];
  imagery_sentiment: string;
  imagery_visual_style: string;
  capture_date: string;
  campaign_text: string;
  full_campaign_text: string;
}

export interface CampaignOptions {
  /** Capture dates fall in the two years (730 days) before this date. */
  anchor: Date;
  count?: number;
  seed?: number;
  /** Prefix of each source_key; the demo uses `demo`, the benchmark its own. */
  keyPrefix?: string;
}

/** The demo campaign the default tenant's competitor tool scopes to. */
export const DEMO_DEFAULT_CAMPAIGN_KEY = 'demo-0001';

// Channel personalities: short-video channels skew playful, TV and LinkedIn calmer.
const CHANNEL_MOOD: Record<string, string[]> = {
  TikTok: ['Playful', 'Empowering', 'Positive'],
  Instagram: ['Aspirational', 'Playful', 'Warm'],
  LinkedIn: ['Trustworthy', 'Calm', 'Empowering'],
  TV: ['Warm', 'Nostalgic', 'Trustworthy'],
  Search: ['Trustworthy', 'Urgent'],
};
const CHANNEL_STYLE: Record<string, string[]> = {
  TikTok: ['User-generated Video', 'Bold Typography'],
  YouTube: ['Documentary', 'Lifestyle Photography', 'User-generated Video'],
  Search: ['Minimalist'],
  Email: ['Minimalist', 'Flat Illustration', 'Product Close-up'],
  'Out-of-home': ['Bold Typography', 'Minimalist', 'Lifestyle Photography'],
};

function weightedCompanies(): (readonly [Company, number])[] {
  return COMPANIES.map((c) => [c, c.weight] as const);
}

function offerFor(rng: Rng, company: Company): string {
  const slots: Record<string, string | number> = {};
  for (const [k, values] of Object.entries(OFFER_SLOTS)) slots[k] = rng.pick(values);
  return fill(rng.pick(OFFERS[company.industry]), slots);
}

function valuePropsFor(rng: Rng, company: Company): string[] {
  const first = rng.chance(0.75) ? rng.pick(company.core) : rng.pick(VALUE_PROPS[company.industry]);
  const others = VALUE_PROPS[company.industry].filter((p) => p !== first);
  return [first, ...rng.sample(others, rng.int(0, 2))];
}

/** One campaign; pure function of (rng state, index). */
function makeCampaign(
  rng: Rng,
  i: number,
  opts: Required<CampaignOptions>,
  companies: (readonly [Company, number])[],
): CampaignInput {
  const company = rng.weighted(companies);
  const brand = rng.pick(company.brands);
  const channel = rng.weighted(CHANNELS);
  const props = valuePropsFor(rng, company);
  const offer = rng.chance(0.72) ? offerFor(rng, company) : undefined;
  const sentiment = rng.chance(0.6) && CHANNEL_MOOD[channel] ? rng.pick(CHANNEL_MOOD[channel]) : rng.pick(SENTIMENTS);
  const style = rng.chance(0.6) && CHANNEL_STYLE[channel] ? rng.pick(CHANNEL_STYLE[channel]) : rng.pick(VISUAL_STYLES);
  const headline = rng.pick(HEADLINES[company.industry]);
  const slots = { brand };
  const propLines = props.map((p) => fill(rng.pick(PROP_LINES[p] ?? ['{brand} has you covered.']), slots));
  const closer = rng.pick(CHANNEL_CLOSERS[channel] ?? ['Find out more.']);

  const short = [`${brand}: ${headline}`, propLines[0], offer ? `${offer}.` : '', closer].filter(Boolean).join(' ');
  const body = [
    headline,
    ...propLines,
    ...(props.length > 1 ? [fill(rng.pick(PROP_LINES[props[0] ?? ''] ?? ['']), slots)] : []),
    offer ? `Right now: ${offer.charAt(0).toLowerCase()}${offer.slice(1)}.` : `Join ${brand} today.`,
    closer,
    rng.pick(TERMS[company.industry]),
  ];
  // Drop a repeated line (the extra prop line may pick the same sentence twice).
  const full = [...new Set(body.filter(Boolean))].join(' ');

  return {
    source_key: `${opts.keyPrefix}-${String(i + 1).padStart(4, '0')}`,
    company: company.name,
    brand,
    channel,
    ...(offer ? { offer } : {}),
    key_value_props: props,
    imagery_sentiment: sentiment,
    imagery_visual_style: style,
    capture_date: daysBefore(opts.anchor, rng.int(0, 729)),
    campaign_text: short,
    full_campaign_text: full,
  };
}

/**
 * Deterministic campaigns: the same options always give the same rows. The demo uses
 * 300 (seed 1); the benchmark generator 100,000 with its own prefix.
 */
export function* generateCampaigns(options: CampaignOptions): Generator<CampaignInput> {
  const opts: Required<CampaignOptions> = { count: 300, seed: 1, keyPrefix: 'demo', ...options };
  const rng = createRng(opts.seed);
  const companies = weightedCompanies();
  for (let i = 0; i < opts.count; i++) {
    const campaign = makeCampaign(rng, i, opts, companies);
    // The demo's default campaign is the tenant's own brand: an energy company, so the
    // competitor profiles (Danish energy) are its competitors.
    if (i === 0 && opts.keyPrefix === 'demo') {
      Object.assign(campaign, {
        company: 'Fjordlys Energi',
        brand: 'Fjordlys Grøn',
        channel: 'Facebook',
        offer: '100% Danish wind power at no extra cost',
        key_value_props: ['Green Energy', 'Local Service'],
        capture_date: daysBefore(opts.anchor, 12),
        campaign_text:
          'Fjordlys Grøn: Power that comes from the wind off our coast. 100% Danish wind power at no extra cost. Learn more on our website.',
        full_campaign_text:
          'Power that comes from the wind off our coast. All the electricity from Fjordlys Grøn is matched with certified ' +
          'power from Danish wind and solar parks. Our customer service is based here in the region, and a real person ' +
          'answers within minutes. Right now: 100% Danish wind power at no extra cost. Learn more on our website. ' +
          'Offer valid for private customers who switch before the campaign ends.',
      });
    }
    if (opts.keyPrefix === 'demo') Object.assign(campaign, RECENT_CASH_BACK_EMAILS(opts.anchor)[i - 1] ?? {});
    yield campaign;
  }
}

/**
 * A few recent cash-back e-mails, so the demo answers "show me recent cash-back campaigns
 * on email" with cards (the random mix happened to have none).
 */
function RECENT_CASH_BACK_EMAILS(anchor: Date): Partial<CampaignInput>[] {
  const base = { channel: 'Email', imagery_visual_style: 'Minimalist' };
  return [
    {
      ...base,
      company: 'Northpeak Credit',
      brand: 'Northpeak Cashback',
      offer: '5% cash back on groceries for 3 months',
      key_value_props: ['Cash Back', 'No Annual Fee'],
      imagery_sentiment: 'Positive',
      capture_date: daysBefore(anchor, 6),
      campaign_text: 'Northpeak Cashback: 5% back on every grocery run. No annual fee, ever.',
      full_campaign_text:
        'Your weekly shop just got cheaper. Get 5% cash back on groceries for your first 3 months with the Northpeak ' +
        'Cashback card, then 1.5% on everything. No annual fee, ever. Apply in five minutes from your phone.',
    },
    {
      ...base,
      company: 'Harbor Rewards',
      brand: 'Harbor Rewards Visa',
      offer: '$200 cash back after $1,000 spend',
      key_value_props: ['Cash Back', 'Rewards Points'],
      imagery_sentiment: 'Trustworthy',
      capture_date: daysBefore(anchor, 19),
      campaign_text: 'Harbor Rewards Visa: earn $200 cash back when you spend $1,000 in your first 90 days.',
      full_campaign_text:
        'Earn $200 cash back when you spend $1,000 in your first 90 days with the Harbor Rewards Visa. Every purchase ' +
        'also earns points you can redeem for travel or statement credit. Terms apply.',
    },
    {
      ...base,
      company: 'Vesta Finance',
      brand: 'Vesta Mastercard',
      offer: '3% cash back on fuel and transit',
      key_value_props: ['Cash Back', 'Low Interest'],
      imagery_sentiment: 'Playful',
      capture_date: daysBefore(anchor, 41),
      campaign_text: 'Vesta Mastercard: 3% cash back at the pump and on your commute, with a low ongoing rate.',
      full_campaign_text:
        'Fill up for less. The Vesta Mastercard gives 3% cash back on fuel and public transit, and a low ongoing ' +
        'interest rate when you need it. No annual fee in the first year.',
    },
  ];
}

export function demoCampaigns(anchor: Date): CampaignInput[] {
  return [...generateCampaigns({ anchor })];
}
