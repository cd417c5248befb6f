/**
 * The feedback functions (issue 47) through each transport of the data port: PGlite, Postgres
 * (with TEST_DATABASE_URL) and supabase-js → PostgREST (the loopback fake over PGlite). A vote
 * names a turn of its own tenant only (row isolation: another tenant's turn is `unknown_turn`, its
 * votes never listed for it); one row per voter and turn, changeable; the overview and the list
 * read what the turn record says; the votes go with their turn record (retention, cascade).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createFeedbackStore } from '../../src/data/feedback.js';
import { openDataPort, type AdminDataPort } from '../../src/data/index.js';
import { importRows } from '../../src/data/import/run.js';
import { feedbackListRow, feedbackOverviewRow, tenantListRow } from '../../src/data/rows.js';
import { silentLogger } from '../../src/telemetry/logger.js';
import { startFakePostgrest, type FakePostgrest } from '../fakes/postgrest.js';
import { openPgliteTestPort, openPostgresTestPort, testConfig, TEST_DATABASE_URL } from '../helpers/db.js';

interface Opened {
  port: AdminDataPort;
  close(): Promise<void>;
}

const KEY = 'test-service-role-key';

const transports: [string, () => Promise<Opened>][] = [
  [
    'PGlite',
    async () => {
      const port = await openPgliteTestPort({ seedDemo: false });
      return { port, close: () => port.close() };
    },
  ],
  [
    'supabase-js → PostgREST → PGlite',
    async () => {
      const backing = await openPgliteTestPort({ seedDemo: false });
      const sql = backing.transport.sql!;
      const fake: FakePostgrest = await startFakePostgrest({ query: (t, p) => sql.query(t, p), serviceKey: KEY });
      const port = await openDataPort(
        testConfig({ SUPABASE_URL: fake.url, SUPABASE_SERVICE_ROLE_KEY: KEY }),
        silentLogger(),
        { tenantCacheMs: 0 },
      );
      return {
        port,
        close: async () => {
          await port.close();
          await fake.close();
          await backing.close();
        },
      };
    },
  ],
  ...(TEST_DATABASE_URL
    ? ([
        [
          'Postgres',
          async () => {
            const { port, db } = await openPostgresTestPort({ seed: false });
            return {
              port,
              close: async () => {
                await port.close();
                await db.drop();
              },
            };
          },
        ],
      ] as [string, () => Promise<Opened>][])
    : []),
];

describe.each(transports)('feedback functions on %s', (_name, open) => {
  let opened: Opened;
  let a: string;
  let b: string;
  beforeAll(async () => {
    opened = await open();
    const port = opened.port;
    a = (await port.defaultTenant()).id;
    await importRows(port, 'tenants', a, [{ slug: 'fb-other', name: 'Other tenant' }]);
    b = (await port.admin('list_tenants', {}, tenantListRow)).find((t) => t.slug === 'fb-other')!.id;
  }, 120_000);
  afterAll(async () => opened?.close());

  /** A turn of `tenant` in the turn record, with a tool and a model. */
  async function turn(tenant: string, tools = [{ tool: 'filter_campaigns', ok: true }]): Promise<string> {
    const id = randomUUID();
    await opened.port.recordUsage({
      tenantId: tenant,
      platform: 'slack',
      channelId: 'C1',
      threadId: '1.1',
      userId: 'U1',
      model: 'gpt-test',
      promptTokens: 100,
      completionTokens: 10,
      toolCalls: tools.length,
      costUsd: 0.001,
      turn: { id, outcome: 'answered', flags: [], tools, durationMs: 5, threadHash: 't', userHash: 'u', traceId: null },
    });
    return id;
  }

  it('records one vote per voter and answer, changeable; another tenant’s answer is unknown to it', async () => {
    const store = createFeedbackStore(opened.port);
    const mine = await turn(a);
    const theirs = await turn(b);
    const vote = { turnId: mine, userHash: 'h1', platform: 'slack', value: 'up' as const };
    expect(await store.record(a, vote)).toMatchObject({
      status: 'recorded',
      previous: null,
      value: 'up',
      changed: true,
    });
    expect(await store.record(a, vote)).toMatchObject({ previous: 'up', changed: false });
    expect(await store.record(a, { ...vote, value: 'down', comment: 'Wrong year.' })).toMatchObject({
      previous: 'up',
      value: 'down',
      changed: true,
    });
    expect(await store.record(a, { ...vote, turnId: theirs })).toMatchObject({
      status: 'unknown_turn',
      changed: false,
    });

    const listed = await opened.port.admin('list_feedback', { value: 'down', tenant: 'default' }, feedbackListRow);
    expect(listed.find((r) => r.turn_id === mine)).toMatchObject({
      comment: 'Wrong year.',
      tools: [{ tool: 'filter_campaigns', ok: true }],
      model: 'gpt-test',
      cost_usd: 0.001,
      outcome: 'answered',
    });
    expect(listed.some((r) => r.turn_id === theirs)).toBe(false);
    const one = await opened.port.admin('list_feedback', { value: 'down', turn_id: mine }, feedbackListRow);
    expect(one.map((r) => r.turn_id)).toEqual([mine]);
  });

  it('sums votes per tenant, model and set of tools for the overview', async () => {
    const store = createFeedbackStore(opened.port);
    const t1 = await turn(b, [
      { tool: 'web_search', ok: true },
      { tool: 'filter_campaigns', ok: true },
      { tool: 'web_search', ok: true },
    ]);
    const t2 = await turn(b, []);
    await store.record(b, { turnId: t1, userHash: 'x', platform: 'http', value: 'up' });
    await store.record(b, { turnId: t1, userHash: 'y', platform: 'http', value: 'down' });
    await store.record(b, { turnId: t2, userHash: 'x', platform: 'http', value: 'up' });
    const span = {
      from: new Date(Date.now() - 3_600_000).toISOString(),
      to: new Date(Date.now() + 60_000).toISOString(),
    };
    const rows = await opened.port.admin('feedback_overview', span, feedbackOverviewRow);
    expect(rows.find((r) => r.dimension === 'tenant' && r.key === 'fb-other')).toMatchObject({ up: 2, down: 1 });
    expect(rows.find((r) => r.dimension === 'tools' && r.key === 'filter_campaigns,web_search')).toMatchObject({
      up: 1,
      down: 1,
    });
    expect(rows.find((r) => r.dimension === 'tools' && r.key === '')).toMatchObject({ up: 1, down: 0 });
  });

  it('the votes go with their turn record: pruned after TURN_LOG_DAYS', async () => {
    const store = createFeedbackStore(opened.port);
    const old = await turn(a);
    await store.record(a, { turnId: old, userHash: 'h', platform: 'slack', value: 'down', comment: 'Too long.' });
    // Written late by the usage journal, the turn keeps the time it happened (here: 100 days ago).
    const sql = opened.port.transport.sql;
    if (sql)
      await sql.query(`update public.turn_log set created_at = now() - interval '100 days' where turn_id = $1`, [old]);
    else return; // supabase-js has no SQL of its own: its backing database is checked on PGlite above
    await opened.port.admin('prune_turn_log', { days: 90 }, z.unknown());
    const left = await opened.port.admin('list_feedback', { value: 'down', turn_id: old }, feedbackListRow);
    expect(left).toEqual([]);
  });
});
