/**
 * Issue 41, item 3: usage rows are never lost. Through the real app on its own Postgres and its
 * own Redis (started here on free ports, never the machine's): Postgres is stopped (`pg_ctl -m
 * immediate`, as a crash) while turns are answered; their ledger and turn-record rows wait in the
 * usage journal (a Redis hash, since the inbox is on Redis) and are written exactly once when it
 * is back, also by the next start of the app when this one stopped first. A flush repeated writes
 * nothing twice (each turn's id is unique in both tables).
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUsageJournal, memoryJournalStore } from '../../src/agent/usage-journal.js';
import { tenantRow } from '../../src/data/rows.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { createTestDatabase, migratePostgres, type TestDatabase } from '../helpers/db.js';
import { captureLogs, collect, message, startHarness, type Harness } from '../helpers/harness.js';
import { canRunRedisServer, startOwnRedis, type OwnRedis } from '../helpers/redis-server.js';
import { canRunPostgres, startOwnPostgres, type OwnPostgres } from '../helpers/postgres-server.js';
import { usageRow } from '../helpers/usage-rows.js';

const runnable = canRunPostgres() && canRunRedisServer();
if (!runnable) console.warn('[usage-journal.test] needs initdb/pg_ctl and redis-server: the app suite is SKIPPED');

interface Rows {
  ledger: { turn_id: string; created_at: Date }[];
  turns: { turn_id: string; outcome: string; error_code: string | null; created_at: Date }[];
}

describe.skipIf(!runnable)('usage rows while Postgres is away', () => {
  let db: TestDatabase;
  let server: OwnPostgres;
  let redis: OwnRedis;
  let redisClient: Redis;
  let llm: FakeOpenAI;
  let h: Harness;
  let env: Record<string, string>;
  let dbDown = false;
  const queue = `uj${Date.now()}`;
  const journalKey = `switchboard:usage-journal:${queue}`;

  beforeAll(async () => {
    server = await startOwnPostgres();
    db = await createTestDatabase(server.url);
    await migratePostgres(db.url);
    redis = await startOwnRedis();
    redisClient = new Redis(redis.url);
    // The test's reader: one test stops this Redis, and the reader just reconnects.
    redisClient.on('error', () => undefined);
    llm = await startFakeOpenAI();
    env = {
      PGLITE_MEMORY: '',
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      REDIS_REQUIRE_PERSISTENCE: 'false',
      INBOX_QUEUE: queue,
      EMBEDDING_DIMENSIONS: '64',
    };
    h = await startHarness({ llm, env });
  }, 60_000);
  afterAll(async () => {
    if (dbDown) await server.start();
    await h?.close();
    await llm?.close();
    redisClient?.disconnect();
    await redis?.stop();
    await server?.close();
  });
  beforeEach(async () => {
    if (dbDown) await server.start();
    dbDown = false;
    h.logs.lines.length = 0;
  });

  /** Every row of both tables (the server is up). */
  async function rows(): Promise<Rows> {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const ledger = await c.query('select turn_id, created_at from token_ledger');
      const turns = await c.query('select turn_id, outcome, error_code, created_at from turn_log');
      return { ledger: ledger.rows as Rows['ledger'], turns: turns.rows as Rows['turns'] };
    } finally {
      await c.end();
    }
  }
  const journaled = () => redisClient.hlen(journalKey);

  /** One answered turn with the database up: the tenant is then cached for the turns that follow. */
  async function warm(on = h): Promise<void> {
    llm.script({ text: 'warm' });
    const events = await collect(on.sb.agent.handle(message('warm up', { threadId: `w-${randomUUID()}` })));
    expect(events.at(-1)?.type).toBe('done');
  }
  async function down(): Promise<void> {
    await server.stop('immediate');
    dbDown = true;
  }
  async function up(): Promise<void> {
    await server.start();
    dbDown = false;
  }
  /** `n` questions in their own threads, answered at once; each must end with `done`. */
  async function answerTurns(n: number, on = h): Promise<void> {
    llm.script(...Array.from({ length: n }, (_, i) => ({ text: `answer ${i}` })));
    const all = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        collect(on.sb.agent.handle(message(`question ${i}`, { threadId: `t-${randomUUID()}` }))),
      ),
    );
    for (const events of all) {
      expect(events.map((e) => e.type)).not.toContain('error');
      expect(events.at(-1)?.type).toBe('done');
    }
  }
  const expectEachOnce = (r: Rows) => {
    expect(new Set(r.turns.map((t) => t.turn_id)).size).toBe(r.turns.length);
    expect(new Set(r.ledger.map((t) => t.turn_id)).size).toBe(r.ledger.length);
    expect(r.turns.every((t) => t.turn_id !== null)).toBe(true);
  };

  it('answers while it is away; once it is back every answered turn has exactly one ledger and one turn row', async () => {
    await warm();
    const before = await rows();
    await down();
    const wentDown = new Date();
    await answerTurns(6);
    // Kept in Redis, one entry a turn; one warn line for the outage, not one a row.
    expect(await journaled()).toBe(6);
    expect(h.logs.lines.filter((l) => l.event === 'usage_journal_keeping')).toHaveLength(1);

    await up();
    await expect
      .poll(async () => (await rows()).turns.length, { timeout: 30_000, interval: 100 })
      .toBe(before.turns.length + 6);
    const after = await rows();
    expect(after.ledger).toHaveLength(before.ledger.length + 6);
    expectEachOnce(after);
    const added = after.turns.filter((t) => !before.turns.some((b) => b.turn_id === t.turn_id));
    expect(added.every((t) => t.outcome === 'answered')).toBe(true);
    // Each keeps the time of its turn, not of the flush.
    expect(added.every((t) => Math.abs(t.created_at.getTime() - wentDown.getTime()) < 10_000)).toBe(true);
    expect(new Set(added.map((t) => t.turn_id))).toEqual(
      new Set(after.ledger.filter((l) => added.some((t) => t.turn_id === l.turn_id)).map((l) => l.turn_id)),
    );
    await expect.poll(journaled, { timeout: 5_000, interval: 50 }).toBe(0);
    expect(h.logs.lines.some((l) => l.event === 'usage_journal_flushed')).toBe(true);
  }, 60_000);

  it('two replicas on one Redis: the rows both kept are written once, though both flush them', async () => {
    const other = await startHarness({ llm, env });
    try {
      await warm();
      await warm(other);
      const before = await rows();
      await down();
      await answerTurns(3);
      await answerTurns(3, other);
      expect(await journaled()).toBe(6);
      await up();
      await expect
        .poll(async () => (await rows()).turns.length, { timeout: 30_000, interval: 100 })
        .toBe(before.turns.length + 6);
      await expect.poll(journaled, { timeout: 15_000, interval: 50 }).toBe(0);
      const after = await rows();
      expect(after.turns).toHaveLength(before.turns.length + 6);
      expect(after.ledger).toHaveLength(before.ledger.length + 6);
      expectEachOnce(after);
    } finally {
      await other.close();
    }
  }, 60_000);

  it('a turn that failed while it was away gets its failed turn row, with its error code, once it is back', async () => {
    await warm();
    const before = await rows();
    await down();
    llm.failNext(1, 500);
    const events = await collect(h.sb.agent.handle(message('will fail', { threadId: `f-${randomUUID()}` })));
    const error = events.find((e) => e.type === 'error');
    expect(error).toBeDefined();
    expect(await journaled()).toBe(1);

    await up();
    await expect
      .poll(async () => (await rows()).turns.length, { timeout: 30_000, interval: 100 })
      .toBe(before.turns.length + 1);
    const after = await rows();
    const added = after.turns.filter((t) => !before.turns.some((b) => b.turn_id === t.turn_id));
    expect(added).toEqual([
      expect.objectContaining({ outcome: 'failed', error_code: (error as { code: string }).code }),
    ]);
    // No tokens known for a failed turn: a turn row only.
    expect(after.ledger).toHaveLength(before.ledger.length);
    expectEachOnce(after);
  }, 60_000);

  it('rows kept when the app stops are written by its next start', async () => {
    await warm();
    const before = await rows();
    await down();
    await answerTurns(3);
    expect(await journaled()).toBe(3);
    await h.close();
    // Still kept: the stopping app's last try failed, nothing was dropped.
    expect(await journaled()).toBe(3);

    await up();
    h = await startHarness({ llm, env });
    await expect
      .poll(async () => (await rows()).turns.length, { timeout: 30_000, interval: 100 })
      .toBe(before.turns.length + 3);
    const after = await rows();
    expect(after.ledger).toHaveLength(before.ledger.length + 3);
    expectEachOnce(after);
    await expect.poll(journaled, { timeout: 5_000, interval: 50 }).toBe(0);
  }, 60_000);

  it('Redis away too: a turn failed on the offline state store keeps its failed row in memory, written once both are back', async () => {
    await warm();
    const before = await rows();
    await down();
    await redis.stop();
    let redisDown = true;
    try {
      const events = await collect(h.sb.agent.handle(message('no state store', { threadId: `r-${randomUUID()}` })));
      const error = events.find((e) => e.type === 'error') as { code: string } | undefined;
      expect(error).toBeDefined();
      expect(h.logs.lines.filter((l) => l.event === 'usage_journal_store_failed')).toHaveLength(1);
      expect(h.logs.lines.some((l) => l.event === 'usage_journal_dropped')).toBe(false);

      await redis.start();
      redisDown = false;
      await up();
      await expect
        .poll(async () => (await rows()).turns.length, { timeout: 30_000, interval: 100 })
        .toBe(before.turns.length + 1);
      const after = await rows();
      const added = after.turns.filter((t) => !before.turns.some((b) => b.turn_id === t.turn_id));
      expect(added).toEqual([expect.objectContaining({ outcome: 'failed', error_code: error!.code })]);
      expectEachOnce(after);
    } finally {
      if (redisDown) await redis.start();
    }
  }, 60_000);

  it('while it is away, a user over the daily budget on the spend held in the journal alone is refused', async () => {
    const budgeted = await startHarness({ llm, env: { ...env, TOKEN_BUDGET_PER_USER_DAILY: '100' } });
    try {
      const before = await rows();
      const userId = `u-${randomUUID()}`;
      llm.script({ text: 'warm' });
      const warmed = await collect(
        budgeted.sb.agent.handle(message('warm up', { userId: `u-${randomUUID()}`, threadId: `w-${randomUUID()}` })),
      );
      expect(warmed.at(-1)?.type).toBe('done');
      await down();
      // The ledger cannot be read and the journal holds nothing of this user's: the turn runs.
      llm.script({ text: 'a long enough answer to pass the budget on its own' });
      const first = await collect(
        budgeted.sb.agent.handle(message('first', { userId, threadId: `b-${randomUUID()}` })),
      );
      expect(first.at(-1)?.type).toBe('done');
      const second = await collect(
        budgeted.sb.agent.handle(message('second', { userId, threadId: `b-${randomUUID()}` })),
      );
      expect(second.find((e) => e.type === 'error')).toMatchObject({ code: 'budget_exhausted' });
      await up();
      await expect
        .poll(async () => (await rows()).turns.length, { timeout: 30_000, interval: 100 })
        .toBe(before.turns.length + 3);
    } finally {
      await budgeted.close();
    }
  }, 60_000);

  it('a flush repeated, or a row written before it was journaled, writes nothing twice', async () => {
    const [tenant] = await h.sb.data.call('default_tenant', {}, tenantRow);
    const row = usageRow(tenant!.id);
    // Written, but as if its answer was lost: the turn also went to the journal.
    await h.sb.data.recordUsage(row);
    const { log } = captureLogs();
    const journal = createUsageJournal({ data: h.sb.data, store: memoryJournalStore(), log, max: 10 });
    await journal.keep(row, new Error('connection reset'));
    await journal.flush();
    await journal.keep(row, new Error('connection reset'));
    await journal.flush();
    // Twice in one statement (the group commit batches rows that queue together).
    await Promise.all([h.sb.data.recordUsage(row), h.sb.data.recordUsage(row)]);
    const r = await rows();
    expect(r.turns.filter((t) => t.turn_id === row.turn!.id)).toHaveLength(1);
    expect(r.ledger.filter((t) => t.turn_id === row.turn!.id)).toHaveLength(1);
    expect(await journal.depth()).toBe(0);
    await journal.stop();
  });
});
