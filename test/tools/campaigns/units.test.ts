import { describe, expect, it } from 'vitest';
import { countTokens } from '../../../src/contract/tokens.js';
import { parseArguments, toolSpec } from '../../../src/agent/registry.js';
import { campaignCard, campaignPage } from '../../../src/tools/campaigns/cards.js';
import { parseDateRange } from '../../../src/tools/campaigns/date-range.js';
import { resolveFilterValues } from '../../../src/tools/campaigns/facets.js';
import { describeFilters, mergeFilters, toSqlArgs } from '../../../src/tools/campaigns/filters.js';
import { createCampaignTools } from '../../../src/tools/campaigns/index.js';
import { boundQueryTerms, cleanText } from '../../../src/tools/campaigns/query-text.js';
import { clipWords as clip } from '../../../src/reply/text.js';
import { buildCampaignResult, campaignToolResult, type Campaign } from '../../../src/tools/campaigns/result.js';
import { followUps } from '../../../src/tools/campaigns/suggestions.js';
import { geminiViolations, openAiStrictViolations } from '../../helpers/schema-rules.js';

const TODAY = new Date('2026-11-01T12:00:00Z');

function campaign(i: number, over: Partial<Campaign> = {}): Campaign {
  return {
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    company: 'Northpeak Credit',
    brand: 'Northpeak Cashback',
    channel: i % 2 ? 'Email' : 'Instagram',
    offer: '3% cashback on groceries for the first 6 months',
    key_value_props: ['Cash Back', 'No Annual Fee'],
    imagery_sentiment: 'Playful',
    imagery_visual_style: 'Minimalist',
    capture_date: '2026-10-12',
    campaign_text: 'Northpeak Cashback: Every purchase pays you back. Groceries, fuel and streaming all earn cashback.',
    full_campaign_text: 'Every purchase pays you back. '.repeat(20),
    ...over,
  };
}

describe('campaign tool schemas', () => {
  const { tools } = createCampaignTools({ EMBEDDING_MODEL: undefined });

  it('export the four tools as valid OpenAI strict and Gemini schemas', () => {
    expect(tools.map((t) => t.name)).toEqual([
      'semantic_search',
      'filter_campaigns',
      'full_text_search',
      'aggregate_campaigns',
    ]);
    for (const tool of tools) {
      const strict = toolSpec(tool, tool.input, 'openai');
      const gemini = toolSpec(tool, tool.input, 'gemini');
      if (strict.type !== 'function' || gemini.type !== 'function') throw new Error('function tools expected');
      expect(openAiStrictViolations(strict.function.parameters as Record<string, unknown>), tool.name).toEqual([]);
      expect(geminiViolations(gemini.function.parameters as Record<string, unknown>), tool.name).toEqual([]);
      expect(strict.function.parameters).not.toHaveProperty('properties.tenant_id');
    }
  });

  it('enforce their limits in zod: query length, value counts and lengths, limit, date_range', () => {
    const [semantic, filter] = tools;
    const bad = (schema: typeof semantic, args: object) => {
      const parsed = parseArguments(JSON.stringify(args), schema!.input);
      return parsed.ok ? '' : parsed.error;
    };
    expect(bad(semantic, { query: 'x'.repeat(1_001) })).toMatch(/query: The query is too long/);
    expect(bad(semantic, { query: '' })).toMatch(/query:/);
    expect(bad(filter, { channel: Array(11).fill('Email') })).toMatch(/channel: at most 10 values/);
    expect(bad(filter, { company: ['x'.repeat(81)] })).toMatch(/company.0: at most 80 characters/);
    expect(bad(filter, { limit: 51 })).toMatch(/limit:/);
    expect(bad(filter, { date_range: 'next tuesday' })).toMatch(/date_range: Use recent/);
    expect(bad(filter, { date_range: 'last_30_days', channel: null, limit: null })).toBe('');
  });
});

describe('date ranges', () => {
  const range = (spec: string) => {
    const r = parseDateRange(spec, TODAY);
    return r.ok ? [r.bounds.from, r.bounds.to] : r.error;
  };

  it('resolves relative, calendar and explicit ranges against today', () => {
    expect(range('recent')).toEqual(['2026-08-04', '2026-11-01']);
    expect(range('last_30_days')).toEqual(['2026-10-03', '2026-11-01']);
    expect(range('Last 2 weeks')).toEqual(['2026-10-19', '2026-11-01']);
    expect(range('today')).toEqual(['2026-11-01', '2026-11-01']);
    expect(range('this_year')).toEqual(['2026-01-01', '2026-11-01']);
    expect(range('last_year')).toEqual(['2025-01-01', '2025-12-31']);
    expect(range('last_month')).toEqual(['2026-10-01', '2026-10-31']);
    expect(range('2024-02')).toEqual(['2024-02-01', '2024-02-29']);
    expect(range('2026-01-01..2026-03-31')).toEqual(['2026-01-01', '2026-03-31']);
    expect(range('2026-03..')).toEqual(['2026-03-01', undefined]);
    expect(range('..2025')).toEqual([undefined, '2025-12-31']);
  });

  it('rejects what it cannot read, impossible days and backwards ranges', () => {
    for (const spec of [
      'soon',
      '2026-02-30',
      '2026-13',
      'last_0_days',
      'last_99999_days',
      '..',
      '2026..2025',
      '1=1; drop',
    ]) {
      expect(range(spec), spec).toEqual(expect.stringMatching(/^date_range/));
    }
  });
});

describe('filters', () => {
  it('merge a follow-up into the active filters; [] drops one, "any" drops the dates, reset drops all', () => {
    const active = { value_props: ['Low Price'], date_range: 'recent' };
    expect(mergeFilters(active, { channel: ['Email', 'email '] })).toEqual({
      value_props: ['Low Price'],
      date_range: 'recent',
      channels: ['Email'],
    });
    expect(mergeFilters(active, { value_prop: [] })).toEqual({ date_range: 'recent' });
    expect(mergeFilters(active, { date_range: 'any' })).toEqual({ value_props: ['Low Price'] });
    expect(mergeFilters(active, { reset_filters: true, has_offer: true })).toEqual({ has_offer: true });
    expect(active).toEqual({ value_props: ['Low Price'], date_range: 'recent' });
  });

  it('map values onto the tenant vocabulary and report unknown ones', () => {
    const facets = { channel: ['Instagram', 'Email'], value_prop: ['Cash Back', 'Premium'], company: ['Kvik Mobil'] };
    const resolved = resolveFilterValues(
      {
        channels: ['emails', 'Snapchat'],
        value_props: ['Cash Back / Rewards', 'PREMIUM'],
        sentiments: ['Calm'],
        companies: ['kvik mobil', 'Kvik'],
      },
      facets,
    );
    expect(resolved.filters).toEqual({
      channels: ['Email'],
      value_props: ['Cash Back', 'Premium'],
      companies: ['Kvik Mobil', 'Kvik'],
    });
    expect(resolved.unknown.map((u) => [u.dimension, u.values])).toEqual([
      ['channels', ['Snapchat']],
      ['value_props', ['Rewards']],
      ['sentiments', ['Calm']],
    ]);
    expect(resolveFilterValues({ value_props: ['cash-back'] }, facets).filters).toEqual({ value_props: ['Cash Back'] });
    // The seed's example put Premium under sentiment; here it is a value prop.
    expect(resolveFilterValues({ sentiments: ['premium'] }, facets).unknown[0]?.elsewhere).toEqual([
      '"Premium" is a value_prop',
    ]);
    expect(resolved.impossible).toEqual(['sentiments']);
  });

  it('become SQL arguments and context labels', () => {
    const filters = { channels: ['Email'], date_range: 'last_30_days', has_offer: false };
    expect(toSqlArgs(filters, TODAY)).toMatchObject({
      ok: true,
      args: { channels: ['Email'], has_offer: false, date_from: '2026-10-03', date_to: '2026-11-01' },
    });
    expect(describeFilters(filters, TODAY)).toEqual([
      'Channel: Email',
      'Dates: last 30 days (2026-10-03 – 2026-11-01)',
      'Without an offer',
    ]);
    expect(describeFilters(filters)).toContain('Dates: last_30_days');
  });
});

describe('query text', () => {
  it('removes what Postgres refuses and what hides words', () => {
    expect(cleanText('no\u0000 annual\u0007 fee')).toBe('no annual fee');
    expect(cleanText('ａｎｎｕａｌ　ｆｅｅ')).toBe('annual fee');
    expect(cleanText('ann\u200Bual f\u00ADee\u202E')).toBe('annual fee');
    expect(cleanText('lone \uD800 half')).toBe('lone half');
    expect(cleanText('😀 ok')).toBe('😀 ok');
    expect(clip('a 😀😀😀', 5)).not.toMatch(/[\uD800-\uDBFF]$/);
  });

  it('bounds full-text queries: duplicates dropped, at most 24 words, phrases and OR kept', () => {
    expect(boundQueryTerms('"no annual fee" -premium OR cashback')).toEqual({
      query: '"no annual fee" -premium OR cashback',
      cut: false,
    });
    expect(boundQueryTerms('fee fee FEE annual fee')).toEqual({ query: 'fee annual', cut: false });
    const long = boundQueryTerms(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '));
    expect(long.cut).toBe(true);
    expect(long.query.split(' ')).toHaveLength(24);
    expect(boundQueryTerms(`"${'a b '.repeat(20)}"`).query.split(' ')).toHaveLength(24);
  });
});

describe('result shape', () => {
  it('lists each campaign on one line with what users ask about', () => {
    const result = buildCampaignResult([campaign(1, { similarity: 0.4567 })]);
    expect(result.count).toBe(1);
    expect(result.summary_for_llm).toBe(
      '1. Northpeak Credit / Northpeak Cashback | Email | 2026-10-12 | Offer: 3% cashback on groceries for the first 6 months | ' +
        'Props: Cash Back, No Annual Fee | Playful, Minimalist | sim 0.46 | "Every purchase pays you back. Groceries, fuel and streaming all earn cashback."',
    );
    expect(result.campaigns[0]?.full_campaign_text).toBeTruthy();
  });

  it('caps at 20 lines and stays within 1,500 tokens for 20 campaigns, however long their fields', () => {
    const typical = Array.from({ length: 30 }, (_, i) => campaign(i));
    const t = campaignToolResult(typical, {
      order: 'newest first',
      limitReached: false,
      filters: ['Channel: Email'],
      notes: [],
      shownAsCards: true,
    });
    expect(t.result.summary_for_llm.split('\n').filter((l) => /^\d+\. /.test(l))).toHaveLength(20);
    expect(t.result.summary_for_llm).toMatch(/…and 10 more not listed here\.$/);
    expect(countTokens(t.content)).toBeLessThanOrEqual(1_500);

    const huge = 'Supercalifragilistic offer text with many unusual wordings '.repeat(40);
    const long = Array.from({ length: 20 }, (_, i) =>
      campaign(i, {
        company: huge,
        brand: huge,
        offer: huge,
        campaign_text: huge,
        key_value_props: Array(12).fill(huge),
        imagery_sentiment: huge,
      }),
    );
    const bounded = campaignToolResult(long, {
      order: 'newest first',
      limitReached: true,
      filters: [huge],
      notes: [huge, huge],
      shownAsCards: true,
    });
    expect(countTokens(bounded.content)).toBeLessThanOrEqual(1_500);
    expect(bounded.content).toMatch(/…and \d+ more not listed here\.$/);
    expect(buildCampaignResult(long, { maxTokens: 300 }).summary_for_llm.length).toBeLessThan(2_000);
  });

  it('renders cards with a balanced snippet, Show more and context; no cards for nothing', () => {
    const c = campaign(1, { snippet: `${'word '.repeat(40)}**annual** **fee** ${'tail '.repeat(30)}` });
    const card = campaignCard(c);
    expect(card.title).toBe('Northpeak Credit · Northpeak Cashback');
    expect(card.subtitle).toBe('Email · 2026-10-12');
    expect((card.body?.split('**').length ?? 1) % 2).toBe(1);
    const blocks = campaignPage({
      campaigns: Array.from({ length: 7 }, (_, i) => campaign(i)),
      offset: 5,
      resultId: 'abc',
      filterLabels: ['Channel: Email'],
      canClear: true,
    });
    expect(blocks.map((b) => b.type)).toEqual(['cards', 'buttons', 'context']);
    expect(blocks[1]).toEqual({
      type: 'buttons',
      buttons: [{ actionId: 'campaigns.clear', label: 'Clear filters', value: 'abc' }],
    });
    expect(blocks[2]).toEqual({ type: 'context', items: ['Showing 6–7 of 7', 'Filters: Channel: Email'] });
    expect(campaignPage({ campaigns: [], offset: 0, resultId: 'x', filterLabels: [], canClear: false })).toEqual([]);
  });

  it('suggests two or three follow-ups that fit the result', () => {
    const rows = Array.from({ length: 6 }, (_, i) =>
      campaign(i, { company: i % 3 ? 'A' : 'B', offer: i % 2 ? null : 'x' }),
    );
    const found = followUps({ kind: 'filter', filters: {}, campaigns: rows, relaxations: [] });
    expect(found).toEqual(['Only the Instagram ones', 'Only the last 30 days', 'What are the main offers here?']);
    const empty = followUps({
      kind: 'text',
      query: 'travel perks',
      filters: { channels: ['TV'] },
      campaigns: [],
      relaxations: [{ dimension: 'channels', count: 4, capped: false }],
    });
    expect(empty).toEqual(['Same search without the channel filter', 'Find campaigns about travel perks']);
  });
});
