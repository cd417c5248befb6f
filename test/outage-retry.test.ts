/**
 * Issue 41, item 2: a Redis or Postgres blip costs a wait, never an answer. The app runs as
 * `npm start` runs it (`serve()`, Slack over HTTP with signed events) on a redis-server and a
 * PostgreSQL of the test's own (never the machine's), and each is stopped for ~3 s while
 * mentions arrive in threads of three. Every question Slack got a 200 for is answered, once, in
 * its thread's order, with no error note; with the retries spent the user gets the note, once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { serve, type Serving } from '../src/wiring/serve.js';
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from './fakes/openai-server.js';
import { postEvent } from './fakes/slack/signing.js';
import { startFakeSlack, type FakeSlack } from './fakes/slack/web-api.js';
import { captureLogs, serveConfig, type LogCapture } from './helpers/harness.js';
import { inboxIdle } from './helpers/inbox-idle.js';
import { canRunPostgres, startOwnPostgres, type OwnPostgres } from './helpers/postgres-server.js';
import { canRunRedisServer, startOwnRedis, type OwnRedis } from './helpers/redis-server.js';
import { testTools } from './helpers/test-tools.js';
import { eventBody, freshTs, mention } from './adapters/slack/setup.js';

const runnable = canRunRedisServer() && canRunPostgres();
if (!runnable) console.warn('[outage-retry] redis-server or initdb/pg_ctl is missing: these tests are SKIPPED');

const SECRET = 'outage-signing-secret';
const CHANNEL = 'C0CHAN1';
/** What the fake model answers: the question's token, so each answer names its question. */
const answerTo = (req: RecordedRequest) => {
  const messages = (req.body.messages ?? []) as { role: string; content?: unknown }[];
  const user = [...messages].reverse().find((m) => m.role === 'user');
  const token = /q-\d+-\d+/.exec(typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content));
  return { text: `Answer to ${token?.[0] ?? '?'}.`, delayMs: 150 };
};

describe.skipIf(!runnable)('a Redis or Postgres outage shorter than the retry budget', { timeout: 120_000 }, () => {
  let redis: OwnRedis;
  let postgres: OwnPostgres;
  let redisDir: string;
  let llm: FakeOpenAI;
  let slack: FakeSlack;
  const apps: Serving[] = [];
  beforeAll(async () => {
    redisDir = mkdtempSync(join(tmpdir(), 'sb-outage-redis-'));
    // AOF on, as production runs it: a restart keeps what was acked.
    [redis, postgres] = await Promise.all([
      startOwnRedis(['--appendonly', 'yes', '--dir', redisDir]),
      startOwnPostgres(),
    ]);
    llm = await startFakeOpenAI({ lenient: true });
    slack = await startFakeSlack({ botUserId: 'U00FAKEBOT01' });
  }, 120_000);
  afterEach(async () => {
    await Promise.allSettled(apps.splice(0).map((a) => a.stop()));
  }, 60_000);
  afterAll(async () => {
    await Promise.allSettled([redis?.stop(), postgres?.close(), llm?.close(), slack?.close()]);
    rmSync(redisDir, { recursive: true, force: true });
  }, 60_000);

  async function start(env: Record<string, string> = {}): Promise<{ app: Serving; logs: LogCapture }> {
    // Scripted per test: the strict-fakes setup resets the fake after each one.
    llm.script(...Array.from({ length: 100 }, () => answerTo));
    const { log, logs } = captureLogs('debug');
    const config = serveConfig(llm.url, {
      REDIS_URL: redis.url,
      INBOX_QUEUE: `outage${Date.now()}`,
      INBOX_LEASE_MS: '2000',
      DATABASE_URL: postgres.url,
      MIGRATE_ON_START: '1',
      SLACK_BOT_TOKEN: slack.options.botToken,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: slack.url,
      // One test user sends every question: this test is about delivery, not the flood limit.
      USER_MESSAGES_PER_MINUTE: '0',
      ...env,
    });
    const app = await serve(config, log, { tools: testTools });
    apps.push(app);
    if (process.env.OUTAGE_LOGS) onTestFailed(() => writeFileSync(process.env.OUTAGE_LOGS!, logs.text()));
    return { app, logs };
  }

  /** The turn record's rows so far, by outcome (read on the test's own Postgres). */
  async function turnRows(): Promise<{ answered: number; failed: number }> {
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ outcome: string; n: number }>(
        'select outcome, count(*)::int as n from public.turn_log group by outcome',
      );
      const of = (o: string) => rows.find((r) => r.outcome === o)?.n ?? 0;
      return { answered: of('answered'), failed: of('failed') };
    } finally {
      await client.end();
    }
  }

  /** Sends a mention as Slack does: again (with backoff) until it gets a 200; false if it never did. */
  async function deliver(app: Serving, body: object, deadline: number): Promise<boolean> {
    for (let retry = 0; Date.now() < deadline; retry++) {
      const res = await postEvent(`${app.url}/slack/events`, body, {
        secret: SECRET,
        ...(retry ? { retryNum: retry, retryReason: 'http_error' } : {}),
      }).catch(() => undefined);
      if (res?.status === 200) return true;
      await sleep(300);
    }
    return false;
  }

  /** `threads` threads of three mentions; `firstUser` asks the first thread's first question. */
  function conversation(round: number, threads: number, firstUser?: string) {
    return Array.from({ length: threads }, (_, t) => {
      const root = freshTs();
      return [0, 1, 2].map((i) => {
        const ts = i === 0 ? root : freshTs();
        const token = `q-${round}${t}-${i}`;
        const user = t === 0 && i === 0 && firstUser ? { user: firstUser } : {};
        const event = mention(`please answer ${token}`, { ts, ...user, ...(i ? { thread_ts: root } : {}) });
        return { root, token, body: eventBody(event) };
      });
    });
  }

  /** Sends each thread's questions in order, 250 ms apart (from its `from`th); resolves once all were tried. */
  async function send(app: Serving, threads: ReturnType<typeof conversation>, acked: Set<string>, from = 0) {
    const deadline = Date.now() + 45_000;
    await Promise.all(
      threads.map(async (thread, t) => {
        for (const q of thread.slice(t === 0 ? from : 0)) {
          if (await deliver(app, q.body, deadline)) acked.add(q.token);
          await sleep(250);
        }
      }),
    );
  }

  /** Every acked question answered once, each thread in its questions' order, and no note in any thread. */
  async function expectAnswered(app: Serving, threads: ReturnType<typeof conversation>, acked: Set<string>) {
    const roots = threads.map((t) => t[0]!.root);
    const answers = () => roots.flatMap((r) => slack.threadReplies(CHANNEL, r));
    await slack.waitFor(
      () => answers().filter((m) => /Answer to q-/.test(m.text)).length >= acked.size,
      `${acked.size} answers (saw ${answers().length})`,
      60_000,
    );
    await inboxIdle(app.sb.inbox, 30_000);
    for (const thread of threads) {
      const said = slack.threadReplies(CHANNEL, thread[0]!.root).map((m) => m.text);
      // No note ("could not", "went wrong", "unreachable") under or instead of an answer.
      expect(said.filter((t) => !/^Answer to q-\d+-\d\.$/.test(t))).toEqual([]);
      const tokens = said.map((t) => /q-\d+-\d/.exec(t)![0]);
      expect(tokens).toEqual(thread.map((q) => q.token).filter((q) => acked.has(q)));
    }
  }

  it('(a) Redis stopped for 3 s while mentions arrive: every acked question is answered, no error note', async () => {
    const { app, logs } = await start();
    const threads = conversation(1, 4, 'U0SLOWASKER');
    const acked = new Set<string>();
    // The first question's turn waits on Slack's users.info while Redis goes away: it then finds the
    // thread lock unreachable before anything was shown (the case that waits and runs again), and
    // the two questions behind it in its thread wait behind it.
    slack.delayNext('users.info', 1_500);
    expect(await deliver(app, threads[0]![0]!.body, Date.now() + 5_000)).toBe(true);
    acked.add(threads[0]![0]!.token);
    await slack.waitFor(() => slack.callsTo('users.info').length > 0, 'the slow users.info');
    const sent = send(app, threads, acked, 1);
    await sleep(200); // other turns are running too (the model takes 150 ms)
    await redis.stop();
    await sleep(3_000);
    await redis.start();
    await sent;
    expect(acked.size).toBe(12);
    await expectAnswered(app, threads, acked);
    expect(logs.lines.filter((l) => String(l.msg) === 'turn failed')).toEqual([]);
    // The turn that could not reach Redis waited and ran again: told once, and its end once.
    expect(logs.lines.filter((l) => String(l.msg).startsWith('turns cannot reach Redis'))).toHaveLength(1);
    expect(logs.lines.filter((l) => String(l.msg).startsWith('turns reach Redis and Postgres again'))).toHaveLength(1);
  });

  it('(b) Postgres stopped for 3 s while mentions arrive: every acked question is answered, no error note', async () => {
    // No stale tenant: every turn of the outage needs the database, so it waits for it.
    const { app, logs } = await start({ TENANT_STALE_MAX_MS: '0' });
    const before = await turnRows();
    const threads = conversation(2, 4);
    const acked = new Set<string>();
    await postgres.stop('fast');
    const sent = send(app, threads, acked);
    await sleep(3_000);
    await postgres.start();
    await sent;
    expect(acked.size).toBe(12);
    await expectAnswered(app, threads, acked);
    expect(logs.lines.filter((l) => String(l.msg) === 'turn failed')).toEqual([]);
    // One turn record each, answered: a run that waited wrote none (0 failed, 0 doubled).
    let after = await turnRows();
    for (let i = 0; i < 100 && after.answered - before.answered < 12; i++) {
      await sleep(200);
      after = await turnRows();
    }
    expect({ answered: after.answered - before.answered, failed: after.failed - before.failed }).toEqual({
      answered: 12,
      failed: 0,
    });
    // The outage is told once at warn, and its end once.
    const warned = logs.lines.filter((l) => l.level === 40 && String(l.msg).startsWith('turns cannot reach'));
    expect(warned).toHaveLength(1);
    expect(logs.lines.filter((l) => String(l.msg).startsWith('turns reach Redis and Postgres again'))).toHaveLength(1);
  });

  it('(c) with its retries spent, the user gets the error note, once', async () => {
    const { app } = await start({ TENANT_STALE_MAX_MS: '0', INBOX_RETRY_ATTEMPTS: '1', INBOX_RETRY_MAX_MS: '100' });
    const root = freshTs();
    await postgres.stop('fast');
    try {
      expect(await deliver(app, eventBody(mention('please answer q-30-0', { ts: root })), Date.now() + 10_000)).toBe(
        true,
      );
      await slack.waitFor(() => slack.threadReplies(CHANNEL, root).length === 1, 'the note', 20_000);
      await inboxIdle(app.sb.inbox, 20_000);
    } finally {
      await postgres.start();
    }
    const said = slack.threadReplies(CHANNEL, root).map((m) => m.text);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/could not reach my storage/);
  });
});
