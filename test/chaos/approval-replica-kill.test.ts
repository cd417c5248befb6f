/**
 * Issue 43, "a replica killed after the click (replayed, one run)": two real Switchboard processes
 * (`src/main.ts`, as `npm start` runs it) on a redis-server of the test's own and one Postgres
 * database (created on TEST_DATABASE_URL's server, migrated, demo data seeded). A mention makes
 * the model call `take_message` (a `write`): the approval message is posted. The asker's signed
 * Approve click is recorded by a replica; the test holds a lock on `business_messages`, so the
 * replica that runs the click blocks inside the tool's insert (found by its connection's
 * `application_name`, waiting on the lock) and is SIGKILLed there. The other replica replays the
 * entry once the lease lapses: the message is stored exactly once and the answer follows in the
 * thread.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { AdminDataPort } from '../../src/data/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { postEvent, postInteraction } from '../fakes/slack/signing.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/web-api.js';
import { openPostgresTestPort, TEST_DATABASE_URL, TEST_DIMENSIONS, type TestDatabase } from '../helpers/db.js';
import { freePort } from '../helpers/free-port.js';
import { canRunRedisServer, startOwnRedis, type OwnRedis } from '../helpers/redis-server.js';
import { BOT_USER, eventBody, freshTs, mention } from '../adapters/slack/setup.js';

const runnable = Boolean(TEST_DATABASE_URL) && canRunRedisServer();
if (!runnable)
  console.warn('[chaos/approval-replica-kill] TEST_DATABASE_URL or redis-server is missing: this test is SKIPPED');

const SECRET = 'approval-kill-signing-secret';
const TEAM = 'T0FAKETEAM';
const CHANNEL = 'C0CHAN1';
const TAKE = {
  name: 'take_message',
  arguments: { name: 'Kill Test', contact: '+61 400 999 000', message: 'Call me back about the kill test.' },
};

/** Polls `find` until it gives a value (the replicas' logs in the error when it never does). */
async function until<T>(find: () => T | undefined, what: string, ms: number, logs: () => string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${logs()}`);
    await sleep(50);
  }
}

interface Replica {
  name: string;
  url: string;
  proc?: ChildProcess;
  out: string;
}

const children: ChildProcess[] = [];
let redis: OwnRedis | undefined;
let db: TestDatabase | undefined;
let port: AdminDataPort | undefined;
let llm: FakeOpenAI | undefined;
let slack: FakeSlack | undefined;
let locker: pg.Client | undefined;
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await locker?.end().catch(() => {});
  await Promise.allSettled([port?.close(), llm?.close(), slack?.close(), redis?.stop()]);
  await db?.drop().catch(() => {});
}, 60_000);

describe.skipIf(!runnable)('approvals across replicas: the one that took the click dies mid-tool', () => {
  it('the other replica replays the click: the tool runs once and the answer follows', async () => {
    redis = await startOwnRedis();
    ({ port, db } = await openPostgresTestPort());
    const sql = port.transport.sql!;
    // The Slack team is the clinic's (take_message needs a business); the server notices a dead
    // client while a statement waits (as a real crash's closed socket is noticed), so the killed
    // replica's blocked insert is cancelled instead of committing after it died.
    await sql.query(
      `insert into public.tenant_workspaces (platform, workspace_id, tenant_id)
       select 'slack', $1, id from public.tenants where slug = 'harbourside'`,
      [TEAM],
    );
    await sql.query(`alter database ${db.name} set client_connection_check_interval = '100ms'`);
    llm = await startFakeOpenAI();
    slack = await startFakeSlack({ botUserId: BOT_USER });
    const queue = `approvalkill${Date.now()}`;

    const start = async (r: Replica): Promise<void> => {
      const url = new URL(db!.url);
      url.searchParams.set('application_name', `replica-${r.name}`);
      const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: {
          PATH: process.env.PATH ?? '',
          OPENAI_API_KEY: 'sk-approval-kill',
          OPENAI_BASE_URL: llm!.url,
          OPENAI_MAX_RETRIES: '0',
          PORT: new URL(r.url).port,
          HOST: '127.0.0.1',
          DATABASE_URL: url.toString(),
          EMBEDDING_DIMENSIONS: String(TEST_DIMENSIONS),
          REDIS_URL: redis!.url,
          INBOX_QUEUE: queue,
          INBOX_LEASE_MS: '2000',
          SHUTDOWN_DRAIN_MS: '200',
          USER_MESSAGES_PER_MINUTE: '0',
          SLACK_BOT_TOKEN: slack!.options.botToken,
          SLACK_SIGNING_SECRET: SECRET,
          SLACK_API_URL: slack!.url,
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(proc);
      r.proc = proc;
      proc.stdout!.on('data', (d: Buffer) => (r.out += d.toString()));
      proc.stderr!.on('data', (d: Buffer) => (r.out += d.toString()));
      const deadline = Date.now() + 120_000;
      while (!r.out.includes('Switchboard listening')) {
        if (Date.now() > deadline || proc.exitCode !== null)
          throw new Error(`replica ${r.name} did not start (exit ${proc.exitCode}):\n${r.out.slice(-2_000)}`);
        await sleep(50);
      }
    };
    const replicas: Replica[] = [];
    for (const name of ['a', 'b']) replicas.push({ name, url: `http://127.0.0.1:${await freePort()}`, out: '' });
    await Promise.all(replicas.map(start));
    const logs = () => replicas.map((r) => `--- replica ${r.name}\n${r.out.slice(-3_000)}`).join('\n');

    // 1. The mention (to replica a): the model calls take_message; the approval message is posted.
    llm.script({ toolCalls: [TAKE] });
    const asked = mention('please take a message for the clinic', { channel: CHANNEL });
    const res = await postEvent(`${replicas[0]!.url}/slack/events`, eventBody(asked), { secret: SECRET });
    expect(res.status).toBe(200);
    const approval = await until(
      () =>
        slack!
          .threadReplies(CHANNEL, asked.ts)
          .find((m) =>
            ((m.blocks ?? []) as { elements?: { action_id?: string }[] }[]).some((b) =>
              (b.elements ?? []).some((e) => e.action_id === 'approval.approve'),
            ),
          ),
      'the approval message',
      30_000,
      logs,
    );
    const approveId = ((approval.blocks ?? []) as { elements?: { action_id?: string; value?: string }[] }[])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === 'approval.approve')!.value!;
    const taken = async () =>
      (await sql.query(`select count(*)::int as n from public.business_messages where name = 'Kill Test'`))[0]!
        .n as number;
    expect(await taken()).toBe(0);

    // 2. The test holds the table: whichever replica runs the click blocks inside the tool's insert.
    locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    await locker.query('begin');
    await locker.query('lock table public.business_messages in share row exclusive mode');

    llm.script({ text: 'Passed on to the clinic.' });
    const click = await postInteraction(
      `${replicas[1]!.url}/slack/events`,
      {
        type: 'block_actions',
        user: { id: 'U0HUMAN1', username: 'human', name: 'human', team_id: TEAM },
        api_app_id: 'A0FAKEAPP',
        token: 'legacy-verification-token',
        container: {
          type: 'message',
          message_ts: approval.ts,
          channel_id: CHANNEL,
          is_ephemeral: false,
          thread_ts: asked.ts,
        },
        trigger_id: `t-${freshTs()}`,
        team: { id: TEAM, domain: 'fake' },
        enterprise: null,
        is_enterprise_install: false,
        channel: { id: CHANNEL, name: 'general' },
        message: { user: BOT_USER, type: 'message', ts: approval.ts, thread_ts: asked.ts },
        state: { values: {} },
        response_url: slack.responseUrl(),
        actions: [
          { action_id: 'approval.approve', block_id: 'b', type: 'button', value: approveId, action_ts: freshTs() },
        ],
      },
      { secret: SECRET },
    );
    // Acked only once the click is recorded in the inbox.
    expect(click.status).toBe(200);

    // 3. The replica whose connection waits on the lock is the one running the tool: killed there.
    const blocked = async () =>
      (
        await sql.query(
          `select application_name from pg_stat_activity
           where datname = current_database() and wait_event_type = 'Lock' and application_name like 'replica-%'`,
        )
      ).map((r) => String(r.application_name));
    let victim: string | undefined;
    for (let i = 0; i < 300 && !victim; i++) {
      victim = (await blocked())[0];
      if (!victim) await sleep(50);
    }
    if (!victim) throw new Error(`no replica reached the tool's insert\n${logs()}`);
    const dead = replicas.find((r) => `replica-${r.name}` === victim)!;
    const survivor = replicas.find((r) => r !== dead)!;
    const exited = new Promise((resolve) => dead.proc!.once('exit', resolve));
    dead.proc!.kill('SIGKILL');
    await exited;
    // Its statement is cancelled by the server (the dead client noticed), never committed.
    const stillWaiting = () =>
      sql.query(
        `select 1 from pg_stat_activity where datname = current_database() and application_name = $1 and state = 'active'`,
        [victim],
      );
    for (let i = 0; i < 100 && (await stillWaiting()).length > 0; i++) await sleep(100);
    expect(await stillWaiting()).toEqual([]);

    // 4. The lock goes; the survivor takes the entry once the lease lapses and replays the click.
    await locker.query('commit');
    const answer = await until(
      () => slack!.threadReplies(CHANNEL, asked.ts).find((m) => m.text.includes('Passed on to the clinic.')),
      'the answer after the replay',
      40_000,
      logs,
    );
    expect(answer).toBeDefined();
    expect(await taken()).toBe(1);
    const [row] = await sql.query(`select state from public.tool_approvals where id = $1`, [approveId]);
    expect(row).toEqual({ state: 'approved' });
    expect(survivor.out).toMatch(/approval decided; the turn resumes/);
    // Nothing more runs later (no second replay): still one row after a lease's time.
    await sleep(3_000);
    expect(await taken()).toBe(1);
    for (const r of replicas) r.proc?.kill('SIGTERM');
  }, 300_000);
});
