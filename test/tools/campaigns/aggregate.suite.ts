import { beforeEach, expect, it } from 'vitest';
import { createHttpApp } from '../../../src/adapters/http/app.js';
import { demoCampaigns, type CampaignInput } from '../../../src/data/demo/campaigns.js';
import { DEMO_ANCHOR } from '../../../src/data/demo/prng.js';
import type { Aggregation } from '../../../src/tools/campaigns/aggregate.js';
import { peer } from '../../helpers/peer.js';
import { blocksOf, call, daysAgo, newThread, runTurn, say, type CampaignWorld } from './setup.js';

/** Counts straight from the demo data the database was seeded with, grouped in JS. */
function expectedCounts(pick: (c: CampaignInput) => string[], where: (c: CampaignInput) => boolean = () => true) {
  const counts = new Map<string, number>();
  const matched = demoCampaigns(DEMO_ANCHOR).filter(where);
  for (const c of matched) for (const v of pick(c)) counts.set(v, (counts.get(v) ?? 0) + 1);
  return { total: matched.length, counts };
}

/** aggregate_campaigns: counts by one dimension under the usual filters, equal to the data itself. */
export function defineAggregationTests(world: () => CampaignWorld): void {
  const w = () => world();
  beforeEach(() => w().llm.reset());

  it('counts campaigns per channel: every group equals the demo data, as a table and as `aggregation`', async () => {
    const turn = await runTurn(
      w(),
      'How many campaigns per channel?',
      [call('aggregate_campaigns', { group_by: 'channel', top: 50 }), say('Email leads.')],
      { threadId: newThread() },
    );
    expect(turn.error).toBeUndefined();
    const agg = turn.data.aggregation as Aggregation;
    const expected = expectedCounts((c) => [c.channel]);
    expect(agg.total).toBe(expected.total);
    expect(agg.groups).toBe(expected.counts.size);
    expect(new Map(agg.rows.map((r) => [r.value, r.campaigns]))).toEqual(expected.counts);
    expect(agg.rows.map((r) => r.campaigns)).toEqual([...agg.rows.map((r) => r.campaigns)].sort((a, b) => b - a));
    const [table] = blocksOf(turn, 'table');
    expect(table).toMatchObject({ type: 'table', columns: ['Channel', 'Campaigns', 'Share'] });
    expect((table as { rows: string[][] }).rows[0]).toEqual([
      agg.rows[0]!.value,
      String(agg.rows[0]!.campaigns),
      `${Math.round((100 * agg.rows[0]!.campaigns) / agg.total)}%`,
    ]);
    expect(turn.toolResults[0]).toMatch(
      new RegExp(
        `^${expected.total} campaigns matched; counted by channel, ${expected.counts.size} channel groups:\\n1\\. `,
      ),
    );
  });

  it('"which companies ran the most cash-back offers in the last 90 days": filters apply, top N, equal to the data', async () => {
    const from = daysAgo(89);
    const where = (c: CampaignInput) =>
      c.key_value_props.includes('Cash Back') &&
      Boolean(c.offer) &&
      c.capture_date >= from &&
      c.capture_date <= daysAgo(0);
    const turn = await runTurn(
      w(),
      'Which two companies ran the most cash-back offers in the last 90 days?',
      [
        call('aggregate_campaigns', {
          group_by: 'company',
          value_prop: ['cash back'],
          has_offer: true,
          date_range: 'last_90_days',
          top: 2,
        }),
        say('Top three.'),
      ],
      { threadId: newThread() },
    );
    const agg = turn.data.aggregation as Aggregation;
    const expected = expectedCounts((c) => [c.company], where);
    expect(expected.counts.size).toBeGreaterThan(2);
    expect(agg.total).toBe(expected.total);
    expect(agg.rows).toHaveLength(2);
    const sorted = [...expected.counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    expect(agg.rows.map((r) => r.campaigns)).toEqual(sorted.slice(0, 2).map(([, n]) => n));
    for (const r of agg.rows) expect(expected.counts.get(r.value!)).toBe(r.campaigns);
    expect(agg.filters).toMatchObject({ value_prop: ['Cash Back'], has_offer: true, date_range: 'last_90_days' });
    expect(turn.toolResults[0]).toContain(`the top 2 of ${expected.counts.size} company groups`);
    expect(agg.groups).toBe(expected.counts.size);
  });

  it('value props count a campaign under each of its props; months group by capture month', async () => {
    const props = await runTurn(
      w(),
      'value props?',
      [call('aggregate_campaigns', { group_by: 'value_prop', top: 50 }), say('ok')],
      { threadId: newThread() },
    );
    const expected = expectedCounts((c) => c.key_value_props);
    expect(new Map((props.data.aggregation as Aggregation).rows.map((r) => [r.value, r.campaigns]))).toEqual(
      expected.counts,
    );
    expect(props.toolResults[0]).toContain('shares can add up to more than 100%');
    const months = await runTurn(
      w(),
      'per month?',
      [call('aggregate_campaigns', { group_by: 'month', date_range: 'this_year', top: 50 }), say('ok')],
      { threadId: newThread() },
    );
    const year = daysAgo(0).slice(0, 4);
    const byMonth = expectedCounts(
      (c) => [c.capture_date.slice(0, 7)],
      (c) => c.capture_date.startsWith(year) && c.capture_date <= daysAgo(0),
    );
    expect(new Map((months.data.aggregation as Aggregation).rows.map((r) => [r.value, r.campaigns]))).toEqual(
      byMonth.counts,
    );
  });

  it('nothing matching is said plainly, without a table; another tenant’s campaigns are never counted', async () => {
    const none = await runTurn(
      w(),
      'count',
      [call('aggregate_campaigns', { group_by: 'channel', company: ['No Such Company Ltd'] }), say('None.')],
      { threadId: newThread() },
    );
    expect(blocksOf(none, 'table')).toHaveLength(0);
    const everything = await runTurn(
      w(),
      'companies',
      [call('aggregate_campaigns', { group_by: 'company', top: 50 }), say('ok')],
      { threadId: newThread() },
    );
    const json = JSON.stringify(everything.data) + JSON.stringify(everything.toolResults);
    for (const secret of w().secretsOfB) expect(json).not.toContain(secret);
  });

  it('the HTTP API returns `aggregation` beside the response', async () => {
    w().llm.script(call('aggregate_campaigns', { group_by: 'sentiment' }), say('Mostly positive.'));
    const res = await createHttpApp({ agent: w().h.sb.agent, log: w().h.sb.log }).request(
      '/api/chat',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'sentiments?', threadId: newThread() }),
      },
      peer(),
    );
    const body = (await res.json()) as { response: string; aggregation: Aggregation; blocks: { type: string }[] };
    expect(body.response).toBe('Mostly positive.');
    expect(body.aggregation).toMatchObject({
      groupBy: 'sentiment',
      total: expectedCounts((c) => [c.imagery_sentiment]).total,
    });
    expect(body.aggregation.rows.length).toBeLessThanOrEqual(10);
    expect(body.blocks.map((b) => b.type)).toEqual(['table']);
  });
}
