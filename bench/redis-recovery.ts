/**
 * How long after a Redis restart each use of Redis answers again: the thread state, the thread
 * lock, the inbox's writes (an adapter recording an event) and the inbox's runs (an entry reaching
 * its delivery function).
 *
 *   npx tsx bench/redis-recovery.ts [--rounds 3] [--down 500,2000,5000]
 *
 * A redis-server of its own on a free port (needs `redis-server` on the PATH; never the machine's
 * Redis) is stopped for `--down` ms and started again; each use is then polled every 5 ms and
 * timed from the moment the new server accepts connections to its first success.
 *
 * - now: the app's wiring (src/wiring/app.ts): createKv (state) with createThreadLock on it, the
 *   inbox writing on the same connection, its BullMQ worker on a blocking one; every connection
 *   from src/net/redis-connection.ts. The rate limits use the state's connection: its figure is
 *   the state's.
 * - before (the policies alone, on bare ioredis connections): the state's and lock's old client
 *   backed off as node-redis was told to (2^n·100 ms up to 5 s, plus up to 100 ms), the inbox's
 *   took ioredis's default (n·50 ms up to 2 s). What a turn met was the later of the two.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { createThreadLock } from '../src/agent/thread-lock.js';
import { createKv } from '../src/state/kv.js';
import { silentLogger } from '../src/telemetry/logger.js';
import { createRedisInbox } from '../src/inbox/redis-inbox.js';
import { startOwnRedis, type OwnRedis } from '../test/helpers/redis-server.js';

const { values: flags } = parseArgs({
  options: { rounds: { type: 'string', default: '3' }, down: { type: 'string', default: '500,2000,5000' } },
});
const ROUNDS = Number(flags.rounds);
const DOWNS = flags.down.split(',').map(Number);
const log = silentLogger();

/** Milliseconds from `t0` until `probe` first resolves (polled every 5 ms; a failure is a "not yet"). */
async function answersAfter(t0: number, probe: () => Promise<unknown>, giveUpMs = 30_000): Promise<number> {
  for (;;) {
    if (
      await probe().then(
        () => true,
        () => false,
      )
    )
      return performance.now() - t0;
    if (performance.now() - t0 > giveUpMs) return Number.NaN;
    await sleep(5);
  }
}

/** Stops the server for `downMs`, starts it again, and returns the time it accepted connections. */
async function restart(redis: OwnRedis, downMs: number): Promise<number> {
  await redis.stop();
  await sleep(downMs);
  await redis.start();
  return performance.now();
}

async function measureNow(redis: OwnRedis, downMs: number) {
  const kv = await createKv({ REDIS_URL: redis.url }, log, { namespace: `bench-${randomUUID()}` });
  const lock = createThreadLock(kv, { log, keyPrefix: `bench-lock-${randomUUID()}:` });
  const inbox = await createRedisInbox(redis.url, log, { queue: `bench${randomUUID().slice(0, 8)}` }, kv.redis);
  const ran = new Set<string>();
  inbox.deliver('bench', async ({ entry }) => void ran.add(entry.id));
  await inbox.start();
  const t0 = await restart(redis, downMs);
  const entryId = randomUUID();
  const [state, lockMs, inboxAdd, inboxRun] = await Promise.all([
    answersAfter(t0, () => kv.set('bench', Date.now())),
    answersAfter(t0, () => lock.runExclusive('bench', async () => undefined)),
    answersAfter(t0, () =>
      inbox.add({ id: entryId, platform: 'bench', thread: 'bench', payload: {}, receivedAt: Date.now() }),
    ),
    answersAfter(t0, async () => {
      if (!ran.has(entryId)) throw new Error('not yet');
    }),
  ]);
  await inbox.stop(0);
  await kv.close();
  return { state, lock: lockMs, inboxAdd, inboxRun };
}

const nodeRedisBackoff = (attempt: number) => Math.min(2 ** (attempt - 1) * 100, 5_000) + Math.random() * 100;
const ioredisDefault = (attempt: number) => Math.min(attempt * 50, 2_000);

async function measureBefore(redis: OwnRedis, downMs: number) {
  const bare = (retryStrategy: (n: number) => number) => {
    const client = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy });
    client.on('error', () => undefined);
    return client;
  };
  const stateAndLock = bare(nodeRedisBackoff);
  const inbox = bare(ioredisDefault);
  await Promise.all([stateAndLock.ping(), inbox.ping()].map((p) => p.catch(() => sleep(200))));
  const t0 = await restart(redis, downMs);
  const [state, inboxMs] = await Promise.all([
    answersAfter(t0, () => stateAndLock.ping()),
    answersAfter(t0, () => inbox.ping()),
  ]);
  stateAndLock.disconnect();
  inbox.disconnect();
  return { stateAndLock: state, inbox: inboxMs };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (xs: number[]) => `median ${median(xs).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms`;

const redis = await startOwnRedis();
try {
  console.log(
    `Redis restarts, ${ROUNDS} per downtime; time from the new server accepting connections to the first success\n`,
  );
  for (const down of DOWNS) {
    const now: Awaited<ReturnType<typeof measureNow>>[] = [];
    const before: Awaited<ReturnType<typeof measureBefore>>[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      before.push(await measureBefore(redis, down));
      now.push(await measureNow(redis, down));
    }
    console.log(`down ${down} ms`);
    console.log(`  before  state+lock (node-redis backoff)  ${fmt(before.map((r) => r.stateAndLock))}`);
    console.log(`          inbox (ioredis default)          ${fmt(before.map((r) => r.inbox))}`);
    console.log(`  now     state                            ${fmt(now.map((r) => r.state))}`);
    console.log(`          thread lock                      ${fmt(now.map((r) => r.lock))}`);
    console.log(`          inbox add                        ${fmt(now.map((r) => r.inboxAdd))}`);
    console.log(`          inbox run (worker)               ${fmt(now.map((r) => r.inboxRun))}`);
  }
} finally {
  await redis.stop();
}
