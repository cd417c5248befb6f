import { beforeEach, describe, expect, it } from 'vitest';
import { hashEmbedding } from '../../../bench/generate-campaigns.js';
import { countTokens } from '../../../src/contract/tokens.js';
import * as rows from '../../../src/data/rows.js';
import { renderPlainText } from '../../../src/reply/plain-text.js';
import { TEST_DIMENSIONS } from '../../helpers/db.js';
import {
  MARK,
  blocksOf,
  buttonsOf,
  call,
  daysAgo,
  newThread,
  runTurn,
  say,
  textOf,
  type CampaignWorld,
} from './setup.js';

/** Each tool's arguments against the demo data: the same rows as the SQL function, in the result shape. */
export function defineSearchTests(world: () => CampaignWorld): void {
  const w = () => world();
  const T = () => w().tenant.id;
  beforeEach(() => w().llm.reset());

  describe('filter_campaigns', () => {
    it('answers "offers from recent Cash Back, Premium campaigns" from the filtered set, with cards', async () => {
      const turn = await runTurn(
        w(),
        'What are the offers from recent Cash Back, Premium campaigns?',
        [
          call('filter_campaigns', { value_prop: ['cash-back', 'premium'], date_range: 'recent' }),
          say('The offers are: …'),
        ],
        { threadId: newThread() },
      );
      expect(turn.error).toBeUndefined();
      const expected = await w().port.call(
        'filter_campaigns',
        {
          tenant_id: T(),
          value_props: ['Cash Back', 'Premium'],
          date_from: daysAgo(89),
          date_to: daysAgo(0),
          limit: 20,
        },
        rows.campaignRow,
      );
      expect(expected.length).toBeGreaterThan(2);
      expect(turn.campaigns.map((c) => c.id)).toEqual(expected.map((c) => c.id));
      for (const c of turn.campaigns) {
        expect(c.key_value_props.some((p) => p === 'Cash Back' || p === 'Premium')).toBe(true);
        expect(c.capture_date >= daysAgo(89)).toBe(true);
      }
      // The model reads the offers (enough to answer without a second tool) but not the rows.
      const [result] = turn.toolResults;
      expect(result).toMatch(
        new RegExp(
          `^${expected.length} campaigns?, newest first\\. Filters: Value prop: Cash Back or Premium; Dates: recent`,
        ),
      );
      const offers = expected.filter((c) => c.offer);
      expect(offers.length).toBeGreaterThan(0); // else the loop below checks nothing
      for (const c of offers) expect(result).toContain(`Offer: ${c.offer}`);
      expect(result).not.toContain(expected[0]!.id);
      expect(result).not.toContain(expected[0]!.full_campaign_text);
      // The API gets the rows, the total, the suggestions and the filters as understood.
      expect(turn.data).toMatchObject({
        total: expected.length,
        detectedFilters: {
          value_prop: ['Cash Back', 'Premium'],
          date_range: 'recent',
          date_from: daysAgo(89),
          date_to: daysAgo(0),
        },
      });
      expect((turn.data.suggestions as string[]).length).toBeGreaterThanOrEqual(2);
      // Cards: up to five, then Show more / Clear filters / suggestions, and the filters as context.
      const [cards] = blocksOf(turn, 'cards');
      expect(cards?.type === 'cards' && cards.cards.length).toBe(Math.min(5, expected.length));
      const first = expected[0]!;
      expect(cards?.type === 'cards' && cards.cards[0]).toMatchObject({
        title: `${first.company} · ${first.brand}`,
        subtitle: `${first.channel} · ${first.capture_date}`,
      });
      const labels = buttonsOf(turn).map((b) => b.label);
      expect(labels).toContain('Clear filters');
      expect(buttonsOf(turn).filter((b) => b.actionId.startsWith('suggest.')).length).toBeGreaterThanOrEqual(2);
      expect(blocksOf(turn, 'context')[0]).toMatchObject({
        items: expect.arrayContaining([expect.stringContaining('Value prop: Cash Back or Premium')]),
      });
      // The console renders the same reply as text.
      expect(renderPlainText(turn.reply!)).toContain(`1. ${first.company} · ${first.brand} · ${first.channel}`);
    });

    it('maps channel, sentiment, style, company and has_offer to their SQL filters', async () => {
      const args = {
        channel: ['instagram', 'TikTok'],
        sentiment: ['playful'],
        company: ['Tellus Mobil', 'Kvik'],
        has_offer: true,
        limit: 50,
      };
      const turn = await runTurn(
        w(),
        'playful Tellus or Kvik ads with offers on Instagram or TikTok',
        [call('filter_campaigns', args), say('ok')],
        { threadId: newThread() },
      );
      const expected = await w().port.call(
        'filter_campaigns',
        {
          tenant_id: T(),
          channels: ['Instagram', 'TikTok'],
          sentiments: ['Playful'],
          companies: ['Tellus Mobil', 'Kvik'],
          has_offer: true,
          limit: 50,
        },
        rows.campaignRow,
      );
      expect(turn.campaigns.map((c) => c.id)).toEqual(expected.map((c) => c.id));
      for (const c of turn.campaigns) {
        expect(['Instagram', 'TikTok']).toContain(c.channel);
        expect(c.imagery_sentiment).toBe('Playful');
        expect(c.offer).toBeTruthy();
      }
      const styled = await runTurn(
        w(),
        'minimalist ones',
        [call('filter_campaigns', { visual_style: ['Minimalist'], reset_filters: true }), say('ok')],
        { threadId: newThread() },
      );
      expect(styled.campaigns.length).toBe(20);
      expect(styled.campaigns.every((c) => c.imagery_visual_style === 'Minimalist')).toBe(true);
    });

    it('resolves date ranges: a month, an explicit range, last N days; rejects nonsense with a fixable error', async () => {
      const cases: [string, string, string][] = [
        ['2026-05', '2026-05-01', '2026-05-31'],
        ['2026-01-01..2026-03-31', '2026-01-01', '2026-03-31'],
        ['last_30_days', daysAgo(29), daysAgo(0)],
        ['2025', '2025-01-01', '2025-12-31'],
      ];
      for (const [range, from, to] of cases) {
        const turn = await runTurn(
          w(),
          `campaigns ${range}`,
          [call('filter_campaigns', { date_range: range, limit: 50 }), say('ok')],
          { threadId: newThread() },
        );
        const expected = await w().port.call(
          'filter_campaigns',
          { tenant_id: T(), date_from: from, date_to: to, limit: 50 },
          rows.campaignRow,
        );
        expect(expected.length, range).toBeGreaterThan(0);
        expect(
          turn.campaigns.map((c) => c.id),
          range,
        ).toEqual(expected.map((c) => c.id));
        expect(turn.data.detectedFilters).toMatchObject({ date_range: range, date_from: from, date_to: to });
      }
      const bad = await runTurn(
        w(),
        'campaigns from around easter',
        [call('filter_campaigns', { date_range: 'around easter' }), say('Which dates?')],
        { threadId: newThread() },
      );
      expect(bad.error).toBeUndefined();
      expect(bad.toolResults[0]).toMatch(/^Error: Invalid arguments: date_range: Use recent, today, last_N_days/);
      const backwards = await runTurn(
        w(),
        'x',
        [call('filter_campaigns', { date_range: '2026-05-01..2026-01-01' }), say('ok')],
        { threadId: newThread() },
      );
      expect(backwards.toolResults[0]).toMatch(/^Error: Invalid arguments: date_range/);
    });

    it('answers "show me recent cash-back campaigns on email" with cards from the demo data', async () => {
      const turn = await runTurn(
        w(),
        'show me recent cash-back campaigns on email',
        [
          call('filter_campaigns', { value_prop: ['Cash Back'], channel: ['Email'], date_range: 'recent' }),
          say('Three recent cash-back e-mails.'),
        ],
        { threadId: newThread() },
      );
      expect(turn.error).toBeUndefined();
      const cards = blocksOf(turn, 'cards') as { cards: { title: string }[] }[];
      expect(cards[0]?.cards.map((c) => c.title)).toEqual(
        expect.arrayContaining([expect.stringContaining('Northpeak Credit')]),
      );
      expect(turn.data).toMatchObject({ total: 3 });
    });

    it('an empty result is a helpful answer: no cards, why, and what would match', async () => {
      // The demo data has no recent cash-back campaign on TikTok.
      const turn = await runTurn(
        w(),
        'show me recent cash-back campaigns on TikTok',
        [
          call('filter_campaigns', { value_prop: ['Cash Back'], channel: ['TikTok'], date_range: 'recent' }),
          say('None in the last 90 days.'),
        ],
        { threadId: newThread() },
      );
      expect(turn.error).toBeUndefined();
      expect(blocksOf(turn, 'cards')).toEqual([]);
      expect(turn.data).toMatchObject({ campaigns: [], total: 0 });
      const [result] = turn.toolResults;
      expect(result).toMatch(/^No campaigns matched\. Filters: Channel: TikTok; Value prop: Cash Back; Dates: recent/);
      expect(result).toMatch(/Without one filter: .*no channel filter → \d+\+? campaigns/);
      expect(result).not.toContain('The user sees them as cards');
      const suggestions = turn.data.suggestions as string[];
      expect(suggestions.length).toBeGreaterThanOrEqual(2);
      expect(suggestions[0]).toMatch(/^Same search without the (channel|date|value prop) filter$/);
      expect(buttonsOf(turn).map((b) => b.label)).toContain('Clear filters');
    });

    it('a value no campaign uses comes back with the known values, without a database round trip for it', async () => {
      const turn = await runTurn(
        w(),
        'snapchat campaigns',
        [call('filter_campaigns', { channel: ['Snapchat'] }), say('There is no Snapchat.')],
        { threadId: newThread() },
      );
      const [result] = turn.toolResults;
      expect(result).toMatch(/^No campaigns matched\./);
      expect(result).toMatch(
        /channel "Snapchat" matches no campaign, so it was not applied; known values: Instagram, Facebook/,
      );
      expect(blocksOf(turn, 'cards')).toEqual([]);
    });
  });

  describe('full_text_search', () => {
    it('understands phrases and exclusions: "no annual fee" -premium', async () => {
      const turn = await runTurn(
        w(),
        'which campaigns mention "no annual fee" but not premium?',
        [call('full_text_search', { query: '"no annual fee" -premium' }), say('These do.')],
        { threadId: newThread() },
      );
      const expected = await w().port.call(
        'search_campaigns_by_text',
        { tenant_id: T(), query: '"no annual fee" -premium', limit: 20 },
        rows.textCampaignRow,
      );
      expect(expected.length).toBeGreaterThan(3);
      expect(turn.campaigns.map((c) => c.id)).toEqual(expected.map((c) => c.id));
      for (const c of turn.campaigns) {
        expect(textOf(c)).toMatch(/annual fees?/);
        expect(textOf(c)).not.toMatch(/premium/);
      }
      expect(turn.toolResults[0]).toMatch(/^20 campaigns \(the limit; more may match\), best match first\./);
      // The snippet's bold marks reach the cards, not the model.
      expect(turn.toolResults[0]).not.toContain('**');
      const [cards] = blocksOf(turn, 'cards');
      expect(cards?.type === 'cards' && cards.cards.some((c) => c.body?.includes('**'))).toBe(true);
    });

    it('a query nothing matches says so and suggests a search by meaning', async () => {
      const turn = await runTurn(
        w(),
        'mentions of quantum blockchain',
        [call('full_text_search', { query: 'quantum blockchain' }), say('None.')],
        { threadId: newThread() },
      );
      expect(turn.toolResults[0]).toMatch(/^No campaigns matched\. No filters\./);
      expect(turn.data.suggestions).toContain('Find campaigns about quantum blockchain');
      expect(blocksOf(turn, 'cards')).toEqual([]);
    });
  });

  describe('semantic_search', () => {
    it('searches by meaning with the cached query embedding, or falls back to full-text and says so', async () => {
      const threadId = newThread();
      const turn = await runTurn(
        w(),
        'anything about travel benefits?',
        [call('semantic_search', { query: 'travel benefits' }), say('Here they are.')],
        { threadId },
      );
      expect(turn.error).toBeUndefined();
      if (w().port.vectorsAvailable) {
        const expected = await w().port.call(
          'search_campaigns',
          { tenant_id: T(), query_embedding: hashEmbedding('travel benefits', TEST_DIMENSIONS), limit: 20 },
          rows.semanticCampaignRow,
        );
        expect(turn.campaigns.map((c) => c.id)).toEqual(expected.map((c) => c.id));
        expect(turn.toolResults[0]).toMatch(/^20 campaigns \(the limit; more may match\), closest in meaning first/);
        expect(turn.toolResults[0]).toMatch(/\| sim \d\.\d\d \|/);
        expect(w().llm.requestsTo('/embeddings')).toHaveLength(1);
        // The same query again in the thread (a follow-up with a filter) reuses the embedding.
        const again = await runTurn(
          w(),
          'only the instagram ones',
          [call('semantic_search', { query: 'travel benefits', channel: ['Instagram'] }), say('ok')],
          { threadId },
        );
        expect(again.campaigns.length).toBeGreaterThan(0);
        expect(again.campaigns.every((c) => c.channel === 'Instagram')).toBe(true);
        expect(w().llm.requestsTo('/embeddings')).toHaveLength(1);
      } else {
        expect(turn.toolResults[0]).toMatch(
          /Semantic search is unavailable \(vector search is not installed in this database\); these are full-text matches/,
        );
        expect(turn.campaigns.length).toBeGreaterThan(0);
        expect(turn.campaigns.every((c) => /travel|benefit/.test(textOf(c)))).toBe(true);
        expect(turn.events.find((e) => e.type === 'tool_result')).toMatchObject({
          summary: expect.stringContaining('full-text fallback'),
        });
      }
    });

    it('ranks by the ad copy alone with embedding_field campaign_text, and by the whole campaign by default', async () => {
      if (!w().port.vectorsAvailable) return; // without vectors both fall back to full-text (above)
      const vector = hashEmbedding('bonus points on travel', TEST_DIMENSIONS);
      const byCopy = await w().port.call(
        'search_campaigns_by_copy',
        { tenant_id: T(), query_embedding: vector, limit: 10 },
        rows.semanticCampaignRow,
      );
      const whole = await w().port.call(
        'search_campaigns',
        { tenant_id: T(), query_embedding: vector, limit: 10 },
        rows.semanticCampaignRow,
      );
      expect(byCopy).toHaveLength(10);
      // Two different vectors per campaign: the rankings are not the same list.
      expect(byCopy.map((c) => c.id)).not.toEqual(whole.map((c) => c.id));
      const turn = await runTurn(
        w(),
        'copy about bonus points on travel?',
        [
          call('semantic_search', { query: 'bonus points on travel', embedding_field: 'campaign_text', limit: 10 }),
          say('ok'),
        ],
        { threadId: newThread() },
      );
      expect(turn.campaigns.map((c) => c.id)).toEqual(byCopy.map((c) => c.id));
      const dflt = await runTurn(
        w(),
        'about bonus points on travel?',
        [call('semantic_search', { query: 'bonus points on travel', limit: 10 }), say('ok')],
        { threadId: newThread() },
      );
      expect(dflt.campaigns.map((c) => c.id)).toEqual(whole.map((c) => c.id));
      // The copy vector is computed from campaign_text alone: its own embedding is the nearest.
      const one = byCopy[0]!;
      const [self] = await w().port.call(
        'search_campaigns_by_copy',
        { tenant_id: T(), query_embedding: hashEmbedding(one.campaign_text, TEST_DIMENSIONS), limit: 1 },
        rows.semanticCampaignRow,
      );
      expect(self?.id).toBe(one.id);
      expect(self?.similarity).toBeCloseTo(1, 5);
    });

    it('falls back to full-text when the embedding endpoint fails', async () => {
      if (!w().port.vectorsAvailable) return; // covered above: without vectors it never embeds
      const llm = w().llm;
      const turn = await runTurn(
        w(),
        'anything on family holidays?',
        [
          () => {
            llm.failNext(1, 500); // the embeddings request that follows this answer
            return call('semantic_search', { query: 'family holidays abroad' });
          },
          say('ok'),
        ],
        { threadId: newThread() },
      );
      expect(turn.error).toBeUndefined();
      expect(turn.toolResults[0]).toMatch(/Semantic search is unavailable \(the embedding service is unavailable\)/);
      expect(turn.campaigns.length).toBeGreaterThan(0);
    });
  });

  describe('hostile input', () => {
    const hostile = [
      "'; drop table campaigns; --",
      '" OR 1=1 --',
      "annual' || pg_sleep(5) || 'fee",
      '\\x00\\\\ $$ %_* ::text',
      'no\u0000 annual\u0007 fee',
      'ａｎｎｕａｌ　ｆｅｅ', // full-width letters and an ideographic space
      'ann\u200Bual f\u00ADee \u202Eeef',
      'lone \uD800 surrogate 😀 fee',
      '((((((((((',
      '-',
    ];

    it('SQL metacharacters and unicode tricks give results or nothing, never a database error', async () => {
      for (const tool of ['full_text_search', 'semantic_search'] as const) {
        for (const query of hostile) {
          const turn = await runTurn(w(), query, [call(tool, { query }), say('done')], { threadId: newThread() });
          expect(turn.error, `${tool} ${JSON.stringify(query)}`).toBeUndefined();
          const result = turn.toolResults[0] ?? '';
          expect(result, JSON.stringify(query)).not.toMatch(/Database call|SQLSTATE|internal error|syntax error/i);
          expect(turn.reply?.text).toBe('done');
        }
      }
      // Full-width and zero-width spellings are read as the plain words.
      const wide = await runTurn(w(), 'x', [call('full_text_search', { query: 'ａｎｎｕａｌ　ｆｅｅ' }), say('ok')], {
        threadId: newThread(),
      });
      expect(wide.campaigns.length).toBeGreaterThan(0);
      const hidden = await runTurn(w(), 'x', [call('full_text_search', { query: 'ann\u200Bual fee' }), say('ok')], {
        threadId: newThread(),
      });
      expect(hidden.campaigns.map((c) => c.id)).toEqual(wide.campaigns.map((c) => c.id));
      const filters = await runTurn(
        w(),
        'x',
        [
          call('filter_campaigns', { channel: ["Email'; drop table campaigns; --"], company: ['\u0000', "' or 1=1"] }),
          say('ok'),
        ],
        { threadId: newThread() },
      );
      expect(filters.error).toBeUndefined();
      expect(filters.toolResults[0]).toMatch(/^No campaigns matched/);
      const all = await w().port.call('filter_campaigns', { tenant_id: T(), limit: 200 }, rows.campaignRow);
      expect(all).toHaveLength(200);
    });

    it('a 10,000-character query is a clear, fixable error for the model; 1,000 characters still search', async () => {
      const long = 'annual fee '.repeat(910).slice(0, 10_000);
      const turn = await runTurn(
        w(),
        'search this',
        [call('full_text_search', { query: long }), say('That query was too long.')],
        { threadId: newThread() },
      );
      expect(turn.error).toBeUndefined();
      expect(turn.toolResults[0]).toMatch(
        /^Error: Invalid arguments: query: The query is too long \(over 1000 characters\)/,
      );
      const ok = await runTurn(
        w(),
        'search this',
        [call('full_text_search', { query: long.slice(0, 1_000) }), say('ok')],
        { threadId: newThread() },
      );
      expect(ok.toolResults[0]).not.toMatch(/^Error/);
      const tooMany = await runTurn(
        w(),
        'x',
        [call('filter_campaigns', { channel: Array.from({ length: 11 }, (_, i) => `c${i}`) }), say('ok')],
        { threadId: newThread() },
      );
      expect(tooMany.toolResults[0]).toMatch(/^Error: Invalid arguments: channel: at most 10 values/);
    });
  });

  describe('result size', () => {
    it('lists at most 20 campaigns to the model, within 1,500 tokens, and keeps every row for the API', async () => {
      const turn = await runTurn(w(), 'all recent campaigns', [call('filter_campaigns', { limit: 50 }), say('ok')], {
        threadId: newThread(),
      });
      expect(turn.campaigns).toHaveLength(50);
      const [result] = turn.toolResults;
      const lines = result!.split('\n');
      expect(lines.filter((l) => /^\d+\. /.test(l))).toHaveLength(20);
      expect(lines.at(-1)).toBe('…and 30 more not listed here.');
      expect(countTokens(result!)).toBeLessThanOrEqual(1_500);
      const summary = turn.events.find((e) => e.type === 'tool_result');
      expect(summary).toMatchObject({ summary: '50 campaigns' });
    });
  });

  describe('tenant isolation', () => {
    it('no tool returns another tenant’s campaigns, whatever the model passes', async () => {
      const asA = [
        call('full_text_search', { query: MARK }),
        call('full_text_search', { query: 'cashback email "no annual fee" wind', channel: ['Email'], limit: 50 }),
        call('filter_campaigns', { channel: ['Email', 'Instagram'], date_range: '2026-10-30..2026-10-31', limit: 50 }),
        call('semantic_search', { query: `${MARK} wind power with no annual fee`, limit: 50 }),
        call('full_text_search', { query: MARK, tenant_id: w().tenantB } as Record<string, unknown>),
      ];
      for (const step of asA) {
        const turn = await runTurn(w(), 'x', [step, say('ok')], { threadId: newThread() });
        expect(turn.error).toBeUndefined();
        const seen = JSON.stringify(turn.events) + turn.toolResults.join('\n');
        for (const secret of w().secretsOfB) expect(seen).not.toContain(secret);
        expect(turn.campaigns.some((c) => textOf(c).includes(MARK))).toBe(false);
      }
      // Tenant B (its Slack workspace) sees its own rows and none of A's.
      const asB = await runTurn(w(), 'x', [call('filter_campaigns', { limit: 50 }), say('ok')], {
        platform: 'slack',
        workspaceId: 'T-B',
        threadId: newThread(),
      });
      expect(w().secretsOfB).toHaveLength(5);
      expect(asB.campaigns).toHaveLength(2);
      expect(asB.campaigns.every((c) => c.company.includes(MARK))).toBe(true);
    });
  });
}
