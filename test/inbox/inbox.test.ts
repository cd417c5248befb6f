import { hostname } from 'node:os';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/telemetry/logger.js';
import type { Delivery, Inbox, InboxEntry } from '../../src/inbox/index.js';
import { createMemoryInbox } from '../../src/inbox/memory-inbox.js';
import { createRedisInbox } from '../../src/inbox/redis-inbox.js';
import { inboxIdle } from '../helpers/inbox-idle.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
if (!REDIS_URL) console.warn('[inbox.test] TEST_REDIS_URL is not set: the Redis inbox tests are SKIPPED');

const log = silentLogger();
const opened: Inbox[] = [];
const queues: string[] = [];
afterAll(async () => {
  await Promise.allSettled(opened.map((i) => i.stop(0)));
  if (REDIS_URL && queues.length) {
    const redis = new Redis(REDIS_URL);
    for (const q of queues) {
      const keys = await redis.keys(`sbtest:*${q}*`);
      if (keys.length) await redis.del(...keys);
    }
    await redis.quit();
  }
});

type Make = (opts?: {
  maxPerThread?: number;
  concurrency?: number;
  queue?: string;
  orderSettleMs?: number;
}) => Promise<Inbox>;
const memory: Make = async (o = {}) => {
  const inbox = createMemoryInbox(log, {
    concurrency: o.concurrency ?? 8,
    maxPerThread: o.maxPerThread ?? 10,
    ...(o.orderSettleMs !== undefined ? { orderSettleMs: o.orderSettleMs } : {}),
  });
  opened.push(inbox);
  return inbox;
};
const redis =
  (queue = `q${randomUUID().slice(0, 8)}`): Make =>
  async (o = {}) => {
    queues.push(queue);
    const inbox = await createRedisInbox(REDIS_URL!, log, {
      prefix: 'sbtest',
      queue: o.queue ?? queue,
      leaseMs: 1_500,
      concurrency: o.concurrency ?? 8,
      maxPerThread: o.maxPerThread ?? 10,
      ...(o.orderSettleMs !== undefined ? { orderSettleMs: o.orderSettleMs } : {}),
    });
    opened.push(inbox);
    return inbox;
  };

const entry = (id: string, thread: string, payload: unknown = {}, order?: number): InboxEntry => ({
  id,
  platform: 'test',
  thread,
  payload,
  receivedAt: Date.now(),
  ...(order !== undefined ? { order } : {}),
});

/** A gate a delivery waits on, opened by the test. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

const kinds: [string, () => Make][] = [['memory', () => memory]];
if (REDIS_URL) kinds.push(['redis', () => redis()]);

describe.each(kinds)('the %s inbox', (_kind, makeFactory) => {
  it('answers each id once, however often (and however concurrently) it is added', async () => {
    const inbox = await makeFactory()();
    const runs: string[] = [];
    inbox.deliver('test', async (d) => void runs.push(d.entry.id));
    await inbox.start();
    const results = await Promise.all([...'aabbbc'].map((id) => inbox.add(entry(id, `t-${id}`))));
    expect(results.filter((r) => r === 'added')).toHaveLength(3);
    await until(() => runs.length === 3, 'three runs');
    // Added again after it was answered: still a duplicate.
    expect(await inbox.add(entry('a', 't-a'))).toBe('duplicate');
    await inboxIdle(inbox);
    expect(runs.sort()).toEqual(['a', 'b', 'c']);
  });

  it('runs one thread one entry at a time, in arrival order, while other threads run alongside', async () => {
    const inbox = await makeFactory()();
    const log: string[] = [];
    let overlap = 0;
    let inThread = 0;
    inbox.deliver('test', async (d) => {
      if (d.entry.thread === 'busy') {
        if (++inThread > 1) overlap++;
        log.push(`start ${d.entry.id}`);
        await sleep(30);
        log.push(`end ${d.entry.id}`);
        inThread--;
      } else log.push(`other ${d.entry.id}`);
    });
    for (let i = 1; i <= 6; i++) expect(await inbox.add(entry(`m${i}`, 'busy'))).toBe('added');
    await inbox.add(entry('x', 'quiet'));
    await inbox.start();
    await until(() => log.filter((l) => l.startsWith('end')).length === 6 && log.includes('other x'), 'all runs');
    expect(overlap).toBe(0);
    expect(log.filter((l) => l.startsWith('start')).map((l) => l.slice(6))).toEqual([
      'm1',
      'm2',
      'm3',
      'm4',
      'm5',
      'm6',
    ]);
    // The other thread did not wait for the busy one to drain.
    expect(log.indexOf('other x')).toBeLessThan(log.indexOf('end m6'));
  });

  it('runs waiting entries by the platform order: a late one sent earlier runs next, the running one is not pre-empted', async () => {
    const inbox = await makeFactory()({ orderSettleMs: 0 });
    const first = gate();
    const started: string[] = [];
    let inThread = 0;
    let overlap = 0;
    inbox.deliver('test', async (d) => {
      if (++inThread > 1) overlap++;
      started.push(d.entry.id);
      if (d.entry.id === 'at100') await first.wait;
      inThread--;
    });
    await inbox.start();
    expect(await inbox.add(entry('at100', 'ordered', {}, 100))).toBe('added');
    await until(() => started.length === 1, 'the first entry to start');
    // While it runs: later ones arrive out of order, one of them sent before the running entry.
    for (const [id, order] of [
      ['at400', 400],
      ['at300', 300],
      ['at050', 50],
      ['at200', 200],
    ] as const)
      expect(await inbox.add(entry(id, 'ordered', {}, order))).toBe('added');
    first.open();
    await until(() => started.length === 5, 'every entry to run');
    await inboxIdle(inbox);
    expect(started).toEqual(['at100', 'at050', 'at200', 'at300', 'at400']);
    expect(overlap).toBe(0);
  });

  it('waits out the settle window after a burst, so an entry sent first but added last still runs first', async () => {
    const inbox = await makeFactory()({ orderSettleMs: 1_000 });
    const first = gate();
    const ended = gate();
    const started: string[] = [];
    inbox.deliver('test', async (d) => {
      started.push(d.entry.id);
      if (d.entry.id === 'running') {
        await first.wait;
        ended.open();
      }
    });
    await inbox.start();
    await inbox.add(entry('running', 'burst', {}, 1));
    await until(() => started.length === 1, 'the running entry');
    await inbox.add(entry('third', 'burst', {}, 30));
    await inbox.add(entry('fourth', 'burst', {}, 40));
    first.open();
    await ended.wait;
    // The running one finished; 'third' would be next, but the thread had arrivals just now.
    await inbox.add(entry('second', 'burst', {}, 20));
    await until(() => started.length === 4, 'the burst to run');
    expect(started).toEqual(['running', 'second', 'third', 'fourth']);
  });

  it('starts a lone message at once, without the settle window', async () => {
    const inbox = await makeFactory()({ orderSettleMs: 150 });
    let startedAt = 0;
    inbox.deliver('test', async () => void (startedAt = performance.now()));
    await inbox.start();
    // An earlier thread's burst does not hold up a lone message in another.
    await inbox.add(entry('other1', 'busy-elsewhere', {}, 1));
    await inbox.add(entry('other2', 'busy-elsewhere', {}, 2));
    const t0 = performance.now();
    await inbox.add(entry('alone', 'lone-thread', {}, Date.now()));
    await until(() => startedAt >= t0, 'the lone message to start');
    expect(startedAt - t0).toBeLessThan(100);
  });

  it('starts a follow-up at once when the message before it has already been answered (only waiting entries hold a thread)', async () => {
    const inbox = await makeFactory()({ orderSettleMs: 1_000 });
    const startedAt = new Map<string, number>();
    const finished = new Set<string>();
    inbox.deliver('test', async (d) => {
      startedAt.set(d.entry.id, performance.now());
      finished.add(d.entry.id);
    });
    await inbox.start();
    await inbox.add(entry('quick', 'back-and-forth', {}, 1));
    await until(() => finished.has('quick'), 'the first answer');
    await inboxIdle(inbox);
    const t0 = performance.now();
    await inbox.add(entry('follow-up', 'back-and-forth', {}, 2));
    await until(() => startedAt.has('follow-up'), 'the follow-up to start');
    // Well under the 1 s window: the first message arrived just now, but it no longer waits.
    expect(startedAt.get('follow-up')! - t0).toBeLessThan(300);
  });

  it('refuses a thread past its bound with `full`, and takes it again once there is room', async () => {
    const inbox = await makeFactory()({ maxPerThread: 3 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const runs: string[] = [];
    inbox.deliver('test', async (d) => {
      await gate;
      runs.push(d.entry.id);
    });
    await inbox.start();
    const results = [];
    for (const id of ['f1', 'f2', 'f3', 'f4']) results.push(await inbox.add(entry(id, 'bounded')));
    expect(results).toEqual(['added', 'added', 'added', 'full']);
    expect(await inbox.add(entry('elsewhere', 'other-thread'))).toBe('added');
    release();
    await until(() => runs.length === 4, 'the bounded thread to drain');
    expect(await inbox.add(entry('f4', 'bounded'))).toBe('added');
    await until(() => runs.includes('f4'), 'f4 once there was room');
  });

  it('gives a delivery what it records, and hands a running entry back on stop (ended quietly through its signal)', async () => {
    const queue = `q${randomUUID().slice(0, 8)}`;
    const make = _kind === 'redis' ? redis(queue) : makeFactory();
    const first = await make();
    let seen: Delivery | undefined;
    first.deliver('test', async (d) => {
      seen = d;
      await d.record('post:1');
      await new Promise<void>((resolve) => d.signal.addEventListener('abort', () => resolve()));
    });
    await first.start();
    await first.add(entry('long', 'slow-thread'));
    await until(() => seen !== undefined, 'the first run');
    await first.stop(100);
    expect(seen!.signal.aborted).toBe(true);
    if (_kind !== 'redis') return; // in memory the entry is gone with the process (README says so)
    const second = await make();
    const replays: Delivery[] = [];
    second.deliver('test', async (d) => void replays.push(d));
    await second.start();
    await until(() => replays.length === 1, 'the replay on the second replica');
    expect(replays[0]).toMatchObject({ attempt: 2, recorded: ['post:1'], entry: { id: 'long' } });
  });
});

describe.skipIf(!REDIS_URL)('the Redis inbox across replicas', () => {
  it('keeps one thread in arrival order across two replicas', async () => {
    const make = redis();
    const [a, b] = [await make({ maxPerThread: 30 }), await make({ maxPerThread: 30 })];
    const order: string[] = [];
    const by = new Set<string>();
    for (const [name, inbox] of [
      ['a', a],
      ['b', b],
    ] as const) {
      inbox.deliver('test', async (d) => {
        order.push(d.entry.id);
        by.add(name);
        await sleep(15);
      });
    }
    const ids = Array.from({ length: 20 }, (_, i) => `r${String(i).padStart(2, '0')}`);
    // Added through both replicas alternately, as a load balancer would spread Slack's requests.
    for (const [i, id] of ids.entries()) await (i % 2 ? b : a).add(entry(id, 'shared-thread'));
    // Both run; then one leaves partway (a deploy), so the thread surely crosses replicas.
    await Promise.all([a.start(), b.start()]);
    await until(() => order.length >= 5, 'five runs', 20_000);
    const leaving = by.has('a') ? a : b;
    await leaving.stop(5_000);
    await until(() => order.length === 20, 'twenty runs', 20_000);
    expect(order).toEqual(ids);
    expect(by.size).toBe(2); // both replicas took part
  });

  it('names the replicas running the inbox and when each last spoke to Redis (the console’s Health page)', async () => {
    const make = redis();
    const [a, b] = [await make(), await make()];
    await Promise.all([a.start(), b.start()]);
    // Only when asked (the console's Health page): probes and /metrics skip the extra round trip.
    expect((await a.stats()).replicas).toBeUndefined();
    const stats = await a.stats({ replicas: true });
    // Two workers on this queue, each named host-pid (both are this process here).
    expect(stats.replicas).toHaveLength(2);
    for (const r of stats.replicas!) {
      expect(r.name).toBe(`${hostname()}-${process.pid}`);
      expect(r.lastSeenMs).toBeLessThan(60_000);
    }
    await b.stop(1_000);
    // A stopped worker closes its connection: it leaves the list.
    let left = 2;
    for (const deadline = Date.now() + 10_000; left !== 1 && Date.now() < deadline; await sleep(50))
      left = (await a.stats({ replicas: true })).replicas?.length ?? 0;
    expect(left).toBe(1);
  });

  it('runs an entry again on another replica within seconds when its runner is killed (SIGKILL), with what it recorded', async () => {
    const queue = `q${randomUUID().slice(0, 8)}`;
    queues.push(queue);
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/inbox/dying-runner.ts'], {
      env: { ...process.env, REDIS_URL, INBOX_QUEUE: queue },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await until(() => out.includes('recorded'), 'the child to start the turn', 30_000);
    child.kill('SIGKILL');
    const killedAt = Date.now();
    const survivor = await redis(queue)();
    const replays: Delivery[] = [];
    let nextInThread = 0;
    survivor.deliver('test', async (d) => {
      if (d.entry.id === 'doomed') replays.push(d);
      else nextInThread = Date.now();
    });
    await survivor.start();
    // A new message in the same thread waits for the replay, not for a stale lock.
    expect(await survivor.add(entry('after', 'doomed-thread'))).toBe('added');
    await until(() => replays.length === 1 && nextInThread > 0, 'the replay and the next message', 15_000);
    const tookMs = Date.now() - killedAt;
    expect(replays[0]).toMatchObject({
      attempt: 2,
      recorded: ['post:111.222'],
      entry: { payload: { text: 'answer me' } },
    });
    expect(tookMs).toBeLessThan(8_000); // lease 1.5 s: seconds, not tens of seconds
  }, 45_000);
});
