import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createThreadLock,
  ThreadLockLostError,
  ThreadLockTimeoutError,
  type ThreadLock,
} from '../../src/agent/thread-lock.js';
import { silentLogger } from '../../src/telemetry/logger.js';
import { captureLogs } from '../helpers/harness.js';
import { createKv, type KvStore } from '../../src/state/kv.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
if (!REDIS_URL) console.warn('[thread-lock.test] TEST_REDIS_URL is not set: the Redis-backed lock tests are SKIPPED');
const describeRedis = REDIS_URL ? describe : describe.skip;

/** Runs `turns` turns for one key, each at its own arrival time; records overlap and completion order. */
async function runTurns(locks: ThreadLock[], key: string, turns: number, workMs = () => 5 + Math.random() * 10) {
  let inside = 0;
  let maxInside = 0;
  const order: number[] = [];
  await Promise.all(
    Array.from({ length: turns }, async (_, i) => {
      await locks[i % locks.length]!.runExclusive(key, async () => {
        inside++;
        maxInside = Math.max(maxInside, inside);
        await sleep(workMs());
        order.push(i);
        inside--;
      });
    }),
  );
  return { maxInside, order };
}

describe('thread lock (one process)', () => {
  it('runs the turns of one thread one at a time, in arrival order', async () => {
    const lock = createThreadLock(null);
    const { maxInside, order } = await runTurns([lock], 'k', 20);
    expect(maxInside).toBe(1);
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(lock.activeKeys).toBe(0);
  });

  it('queues a message that arrives mid-turn and runs it exactly once, after', async () => {
    const lock = createThreadLock(null);
    const log: string[] = [];
    const first = lock.runExclusive('k', async () => {
      log.push('first:start');
      await sleep(30);
      log.push('first:end');
      return 1;
    });
    await sleep(10);
    const second = lock.runExclusive('k', async () => {
      log.push('second');
      return 2;
    });
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(log).toEqual(['first:start', 'first:end', 'second']);
  });

  it('runs different threads in parallel', async () => {
    const lock = createThreadLock(null);
    let bothInside = false;
    let inside = 0;
    const turn = async () => {
      inside++;
      await sleep(20);
      bothInside ||= inside === 2;
      inside--;
    };
    await Promise.all([lock.runExclusive('a', turn), lock.runExclusive('b', turn)]);
    expect(bothInside).toBe(true);
  });

  it('passes an error on and lets the next turn run', async () => {
    const lock = createThreadLock(null);
    const failing = lock.runExclusive('k', async () => {
      throw new Error('tool exploded');
    });
    const next = lock.runExclusive('k', async () => 'ran');
    await expect(failing).rejects.toThrow('tool exploded');
    expect(await next).toBe('ran');
    expect(lock.activeKeys).toBe(0);
  });

  it('forgets idle keys', async () => {
    const lock = createThreadLock(null);
    await Promise.all(Array.from({ length: 500 }, (_, i) => lock.runExclusive(`thread-${i}`, async () => i)));
    expect(lock.activeKeys).toBe(0);
  });
});

describeRedis('thread lock (redis, two replicas)', () => {
  const prefix = `sbtest-lock-${randomUUID()}:`;
  const opened: KvStore[] = [];
  const connect = async () => {
    const kv = await createKv({ REDIS_URL }, silentLogger(), { namespace: `${prefix}kv` });
    opened.push(kv);
    return kv;
  };
  const replica = async (options: Parameters<typeof createThreadLock>[1] = {}) =>
    createThreadLock(await connect(), { keyPrefix: prefix, pollMinMs: 5, pollMaxMs: 20, ...options });

  afterAll(async () => {
    const client = opened.find((kv) => kv.redis?.status === 'ready')?.redis;
    if (client)
      for await (const keys of client.scanStream({ match: `${prefix}*`, count: 100 }) as AsyncIterable<string[]>)
        if (keys.length) await client.del(...keys);
    await Promise.all(opened.map((kv) => kv.close()));
  });

  it('excludes each other across two connections', async () => {
    const [a, b] = [await replica(), await replica()];
    const { maxInside, order } = await runTurns([a, b], 'exclusive', 30);
    expect(maxInside).toBe(1);
    expect(order).toHaveLength(30);
  });

  it('keeps arrival order within one replica', async () => {
    const a = await replica();
    const { maxInside, order } = await runTurns([a], 'fifo', 10);
    expect(maxInside).toBe(1);
    expect(order).toEqual(Array.from({ length: 10 }, (_, i) => i));
  });

  it('renews the lease while a long turn runs', async () => {
    const [a, b] = [await replica({ leaseMs: 150 }), await replica({ leaseMs: 150 })];
    const events: string[] = [];
    const long = a.runExclusive('renew', async () => {
      events.push('a:start');
      await sleep(600); // four leases long
      events.push('a:end');
    });
    await sleep(20);
    await b.runExclusive('renew', async () => void events.push('b'));
    await long;
    expect(events).toEqual(['a:start', 'a:end', 'b']);
  });

  it('recovers a thread whose holder died, once its lease expires', async () => {
    const holder = await connect();
    // What a crashed replica leaves behind: its lease, with nobody left to renew or release it.
    await holder.redis!.set(`${prefix}crashed`, 'dead-replica-token', 'PX', 300, 'NX');
    const b = await replica();
    const started = Date.now();
    expect(await b.runExclusive('crashed', async () => 'recovered')).toBe('recovered');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('recovers when a holder loses its connection mid-turn', async () => {
    const holderKv = await connect();
    const a = createThreadLock(holderKv, { keyPrefix: prefix, leaseMs: 300, log: silentLogger() });
    const b = await replica({ leaseMs: 300 });
    let finishA!: () => void;
    let aSignal: AbortSignal | undefined;
    const stuck = a.runExclusive('lost-conn', (signal) => {
      aSignal = signal;
      return new Promise<void>((resolve) => (finishA = resolve));
    });
    await sleep(20);
    holderKv.redis!.disconnect(); // the replica's Redis connection is gone: no renewals, no release
    const started = Date.now();
    expect(await b.runExclusive('lost-conn', async () => 'b ran')).toBe('b ran');
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    await sleep(150); // the holder's next failed renewal is a whole lease after its last good one
    expect(aSignal?.aborted).toBe(true);
    finishA();
    await expect(stuck).resolves.toBeUndefined(); // the failed release is logged, not thrown
  });

  it('tells the turn when its lease was taken over', async () => {
    const kv = await connect();
    const a = createThreadLock(kv, { keyPrefix: prefix, leaseMs: 90 });
    const aborted = await a.runExclusive('stolen', async (signal) => {
      await kv.redis!.set(`${prefix}stolen`, 'someone-else'); // as if the lease expired and another replica took it
      await sleep(150);
      return signal.aborted;
    });
    expect(aborted).toBe(true);
    expect(await kv.redis!.get(`${prefix}stolen`)).toBe('someone-else'); // release never deletes another holder's lease
  });

  it('says why: the abort reason is a ThreadLockLostError, which the core retries through the inbox', async () => {
    const kv = await connect();
    const a = createThreadLock(kv, { keyPrefix: prefix, leaseMs: 90 });
    const reason = await a.runExclusive('stolen-why', async (signal) => {
      await kv.redis!.set(`${prefix}stolen-why`, 'someone-else');
      await sleep(150);
      return signal.reason as unknown;
    });
    expect(reason).toBeInstanceOf(ThreadLockLostError);
  });

  it('goes on after this process stalled past its lease while nobody took the thread, and still excludes', async () => {
    const { log, logs } = captureLogs('debug');
    const kv = await connect();
    const a = createThreadLock(kv, { keyPrefix: prefix, leaseMs: 150, log });
    const b = await replica({ leaseMs: 150 });
    const events: string[] = [];
    let other: Promise<void> | undefined;
    const stalled = a.runExclusive('stall', async (signal) => {
      events.push('a:start');
      // What a starved CPU or a long GC pause does: no timer runs for two leases.
      const until = Date.now() + 350;
      while (Date.now() < until);
      expect(await kv.redis!.exists(`${prefix}stall`)).toBe(0); // the lease lapsed meanwhile
      await sleep(120); // the next renewal takes the thread again
      expect(await kv.redis!.exists(`${prefix}stall`)).toBe(1);
      other = b.runExclusive('stall', async () => void events.push('b'));
      await sleep(200); // b waits: the thread is a's again
      events.push(`a:end aborted=${signal.aborted}`);
    });
    await stalled;
    await other;
    expect(events).toEqual(['a:start', 'a:end aborted=false', 'b']);
    expect(logs.lines.map((l) => l.msg)).toContain(
      'thread lock lease lapsed while this process stalled; taken again (no other turn had the thread)',
    );
  });

  it('releases the lock when the turn throws', async () => {
    const [a, b] = [await replica(), await replica()];
    await expect(
      a.runExclusive('throws', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await opened[0]!.redis!.exists(`${prefix}throws`)).toBe(0);
    const started = Date.now();
    await b.runExclusive('throws', async () => undefined);
    expect(Date.now() - started).toBeLessThan(100);
  });

  it('gives up with ThreadLockTimeoutError when another replica holds the thread too long', async () => {
    const kv = await connect();
    await kv.redis!.set(`${prefix}busy`, 'other', 'PX', 10_000, 'NX');
    const b = await replica({ acquireTimeoutMs: 150 });
    await expect(b.runExclusive('busy', async () => 'never')).rejects.toBeInstanceOf(ThreadLockTimeoutError);
    expect(b.activeKeys).toBe(0);
  });
});
