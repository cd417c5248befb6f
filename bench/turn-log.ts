/**
 * The turn record's cost: what writing it beside the ledger row adds to a turn, and what the
 * operator console's queries cost on a full table.
 *
 *   npx tsx bench/turn-log.ts [--writes 400] [--rows 200000] [--only postgres|pglite]
 *
 * 1. One turn's write, sequential (what a lone turn waits for): the ledger row alone (as before
 *    the turn record) against the ledger row and the turn row in one statement. Median and p95.
 * 2. A burst of 1,000 turns ending together (group commit): wall time and statements.
 * 3. The console on `--rows` turn rows spread over 90 days and 5 tenants: the overview of 30
 *    days, the newest page of turns, one tenant's, a failed-only filter, page 100; median of 7.
 * 4. Retention: 10% of the rows older than 90 days, deleted in batches of 1,000.
 *
 * Postgres: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else DATABASE_URL (a scratch database is
 * created there and dropped). PGlite: in memory. Everything goes through the DataPort.
 */
import { parseArgs } from 'node:util';
import { parseConfig } from '../src/config/index.js';
import type { UsageRow } from '../src/contract/data.js';
import { openDataPort, type AdminDataPort } from '../src/data/index.js';
import { importRows } from '../src/data/import/run.js';
import { migrate } from '../src/data/migrate.js';
import { prunedRow, turnListRow, turnOverviewRow } from '../src/data/rows.js';
import { openPostgres } from '../src/data/transports/postgres.js';
import { silentLogger } from '../src/telemetry/logger.js';
import { createTestDatabase } from '../test/helpers/db.js';

const { values: flags } = parseArgs({
  options: {
    writes: { type: 'string', default: '400' },
    rows: { type: 'string', default: '200000' },
    only: { type: 'string', default: '' },
  },
});
const WRITES = Number(flags.writes);
const ROWS = Number(flags.rows);
const SERVER = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;

const ms = (t0: number) => performance.now() - t0;
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const f = (n: number) => n.toFixed(2);

async function bench(
  name: string,
  port: AdminDataPort,
  sql: { query: (t: string, p?: unknown[]) => Promise<unknown> },
) {
  const owner = await port.defaultTenant();
  await importRows(
    port,
    'tenants',
    owner.id,
    [1, 2, 3, 4].map((i) => ({ slug: `bench${i}`, name: `Bench ${i}` })),
  );
  const row = (i: number, turn: boolean): UsageRow => ({
    tenantId: owner.id,
    platform: 'slack',
    channelId: 'C1',
    threadId: `t${i % 50}`,
    userId: `U${i % 20}`,
    model: 'gpt-4o-mini',
    promptTokens: 1_200,
    completionTokens: 80,
    cachedPromptTokens: 600,
    toolCalls: 1,
    costUsd: 0.0003,
    ...(turn
      ? {
          turn: {
            outcome: 'answered',
            flags: [],
            tools: [{ tool: 'filter_campaigns', ok: true }],
            durationMs: 900,
            threadHash: `th${i % 50}`,
            userHash: `uh${i % 20}`,
          },
        }
      : {}),
  });

  console.log(`\n== ${name}`);
  // Warm up both paths, then interleave them so load on the machine hits both alike.
  for (let i = 0; i < 20; i++) await port.recordUsage(row(i, i % 2 === 0));
  const alone: number[] = [];
  const both: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    const withTurn = i % 2 === 1;
    const t0 = performance.now();
    await port.recordUsage(row(i, withTurn));
    (withTurn ? both : alone).push(ms(t0));
  }
  console.log(
    `one turn's write (n=${WRITES / 2} each): ledger row alone median ${f(pct(alone, 0.5))} ms p95 ${f(pct(alone, 0.95))} ms; ` +
      `ledger + turn row in one statement median ${f(pct(both, 0.5))} ms p95 ${f(pct(both, 0.95))} ms`,
  );

  const calls: string[] = [];
  const rpc = port.transport.rpc.bind(port.transport);
  port.transport.rpc = (fn, args, opts) => (calls.push(fn), rpc(fn, args, opts));
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 1_000 }, (_, i) => port.recordUsage(row(i, true))));
  port.transport.rpc = rpc;
  console.log(`a burst of 1,000 turns: ${f(ms(t0))} ms, ${calls.length} statements`);

  // A full table: ROWS turns over 90 days, 5 tenants, 10% failed or refused, 1% flagged.
  const t1 = performance.now();
  await sql.query(
    `insert into public.turn_log (tenant_id, platform, thread_hash, user_hash, outcome, error_code, flags, tools,
       duration_ms, model, prompt_tokens, completion_tokens, cached_prompt_tokens, cost_usd, created_at)
     select (array(select id from public.tenants order by slug))[1 + g % 5],
            (array['slack','discord','http'])[1 + g % 3], 'th' || (g % 5000), 'uh' || (g % 700),
            case when g % 10 = 0 then 'failed' when g % 10 = 1 then 'refused' else 'answered' end,
            case when g % 10 = 0 then 'llm_unavailable' when g % 10 = 1 then 'rate_limited' end,
            case when g % 100 = 7 then array['prompt_injection'] else '{}'::text[] end,
            '[{"tool":"filter_campaigns","ok":true}]'::jsonb, 800 + g % 2000, 'gpt-4o-mini',
            1200, 80, 600, 0.0003, now() - ((g::double precision / $1) * interval '100 days')
     from generate_series(1, $1) g`,
    [ROWS],
  );
  await sql.query('analyze public.turn_log');
  console.log(`loaded ${ROWS.toLocaleString('en-US')} turn rows in ${f(ms(t1) / 1000)} s`);

  const now = Date.now();
  const queries: [string, () => Promise<unknown>][] = [
    [
      'overview, 30 days',
      () =>
        port.admin(
          'turn_overview',
          { from: new Date(now - 30 * 86_400_000).toISOString(), to: new Date(now).toISOString() },
          turnOverviewRow,
        ),
    ],
    ['turns, newest page', () => port.admin('list_turns', { limit: 51 }, turnListRow)],
    ['turns, one tenant', () => port.admin('list_turns', { tenant: 'bench3', limit: 51 }, turnListRow)],
    ['turns, failed only', () => port.admin('list_turns', { outcome: 'failed', limit: 51 }, turnListRow)],
    ['turns, flagged only', () => port.admin('list_turns', { flag: 'prompt_injection', limit: 51 }, turnListRow)],
    ['turns, page 100', () => port.admin('list_turns', { offset: 99 * 50, limit: 51 }, turnListRow)],
  ];
  for (const [label, q] of queries) {
    const times: number[] = [];
    await q();
    for (let i = 0; i < 7; i++) {
      const t = performance.now();
      await q();
      times.push(ms(t));
    }
    console.log(`${label}: median ${f(pct(times, 0.5))} ms (max ${f(Math.max(...times))} ms)`);
  }

  const t2 = performance.now();
  let deleted = 0;
  let batches = 0;
  for (;;) {
    const [r] = await port.admin('prune_turn_log', { days: 90, limit: 1_000 }, prunedRow);
    batches++;
    deleted += r?.deleted ?? 0;
    if ((r?.deleted ?? 0) < 1_000) break;
  }
  console.log(
    `retention: ${deleted.toLocaleString('en-US')} rows older than 90 days in ${batches} statements, ${f(ms(t2))} ms`,
  );
}

if (flags.only !== 'postgres') {
  const port = await openDataPort(parseConfig({ PGLITE_MEMORY: '1', EMBEDDING_DIMENSIONS: '8' }), silentLogger(), {
    seedDemo: false,
  });
  await bench('PGlite (in memory)', port, port.transport.sql!);
  await port.close();
}
if (flags.only !== 'pglite') {
  if (!SERVER) console.log('\n(no BENCH_DATABASE_URL / TEST_DATABASE_URL / DATABASE_URL: Postgres skipped)');
  else {
    const db = await createTestDatabase(SERVER, 'bench');
    try {
      const sql = openPostgres(db.url);
      await migrate(sql, { embeddingDimensions: 8 });
      await sql.close();
      const port = await openDataPort(
        parseConfig({ DATABASE_URL: db.url, EMBEDDING_DIMENSIONS: '8' }),
        silentLogger(),
        { tenantCacheMs: 0 },
      );
      await bench('Postgres', port, port.transport.sql!);
      await port.close();
    } finally {
      await db.drop();
    }
  }
}
