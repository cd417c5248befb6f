import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { silentLogger, type Logger } from '../telemetry/logger.js';
import { createOutageNotice } from '../telemetry/outage-notice.js';
import type { KvStore } from '../state/kv.js';

/**
 * Turns of one thread never overlap. Within a process, turns for a key run one after another in
 * arrival order (a FIFO promise chain per key; different keys run in parallel). With Redis, the
 * head of each local queue also takes a lease on `<prefix><key>` so replicas exclude each other.
 *
 * Why not a library: redlock is not installed and its multi-node quorum is more than one Redis
 * needs. This is the single-instance pattern from the Redis docs: SET NX PX with a random token,
 * renew while running, release with a compare-and-delete script so a holder never deletes a
 * lease that expired and was taken by someone else.
 */
export interface ThreadLock {
  /** Runs fn once it holds the thread; `signal` aborts if the Redis lease is lost mid-turn. */
  runExclusive<T>(key: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** Keys with a running or waiting turn in this process (idle keys are forgotten). */
  readonly activeKeys: number;
}

/** The two commands the lock needs, as ioredis spells them (the kv store's shared connection). */
export interface LockRedis {
  set(key: string, value: string, px: 'PX', milliseconds: number, nx: 'NX'): Promise<unknown>;
  eval(script: string, numberOfKeys: number, ...keysThenArgs: string[]): Promise<unknown>;
}

export interface ThreadLockOptions {
  /** How long a lease lives without renewal; a crashed holder is recovered after this. */
  leaseMs?: number;
  /** Renewal period while fn runs; a third of the lease leaves room for two missed renewals. */
  renewEveryMs?: number;
  /** How long the head of a local queue waits for another replica before giving up. */
  acquireTimeoutMs?: number;
  /** Poll backoff bounds while another replica holds the thread. */
  pollMinMs?: number;
  pollMaxMs?: number;
  keyPrefix?: string;
  log?: Logger;
}

/** In one process the lock cannot be lost, so its signal never aborts (one for all turns). */
const NEVER_LOST = new AbortController().signal;

export class ThreadLockTimeoutError extends Error {
  constructor(
    readonly key: string,
    waitedMs: number,
  ) {
    super(`thread ${key} stayed busy for ${waitedMs} ms`);
    this.name = 'ThreadLockTimeoutError';
  }
}

/**
 * The turn's lease was taken by another holder while it ran (after this process stalled past a
 * whole lease, or lost Redis for that long): the abort reason of the turn's signal.
 */
export class ThreadLockLostError extends Error {
  constructor(readonly key: string) {
    super(`thread lock ${key} was lost while the turn ran`);
    this.name = 'ThreadLockLostError';
  }
}

/** Whether a turn's signal was aborted because its thread lock was lost (see ThreadLockLostError). */
export const lostThreadLock = (signal: AbortSignal | undefined): boolean =>
  signal?.aborted === true && signal.reason instanceof ThreadLockLostError;

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
/**
 * Renews our lease: 1 when it was still ours; 2 when it had lapsed (this process stalled past a
 * whole lease: a long GC pause, a starved CPU) and nobody took the thread meanwhile, so it is
 * ours again; 0 when another holder has it.
 */
const RENEW = `local v = redis.call('get', KEYS[1])
if v == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
if not v then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 2 end
return 0`;

export function createThreadLock(source?: KvStore | LockRedis | null, options: ThreadLockOptions = {}): ThreadLock {
  const redis = source && isKvStore(source) ? source.redis : (source ?? undefined);
  const o = {
    leaseMs: options.leaseMs ?? 30_000,
    renewEveryMs: options.renewEveryMs ?? Math.floor((options.leaseMs ?? 30_000) / 3),
    acquireTimeoutMs: options.acquireTimeoutMs ?? 5 * 60_000,
    pollMinMs: options.pollMinMs ?? 20,
    pollMaxMs: options.pollMaxMs ?? 250,
    keyPrefix: options.keyPrefix ?? 'switchboard:lock:',
    log: options.log ?? silentLogger(),
  };
  if (o.renewEveryMs >= o.leaseMs) throw new Error('thread lock: renewEveryMs must be shorter than leaseMs');
  // A Redis outage is told once (a renewal or release failing in every running turn), and its end.
  const outage = createOutageNotice(o.log, 'the thread lock reaches Redis again');
  /** The promise the next arrival for a key waits on: the end of the last queued turn. */
  const tails = new Map<string, Promise<void>>();

  async function runExclusive<T>(key: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const tail = previous.then(() => mine);
    tails.set(key, tail);
    try {
      await previous; // never rejects: the chain is built from `mine` promises, which only resolve
      return redis ? await holdInRedis(redis, key, fn) : await fn(NEVER_LOST);
    } finally {
      done();
      if (tails.get(key) === tail) tails.delete(key);
    }
  }

  async function holdInRedis<T>(client: LockRedis, key: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const lockKey = o.keyPrefix + key;
    const token = randomUUID();
    const lease: Lease = { lost: new AbortController(), renewedAt: await acquire(client, lockKey, token, key) };
    let renewing = false;
    const timer = setInterval(() => {
      if (renewing) return; // a slow Redis must not stack renewals
      renewing = true;
      void renew(client, lockKey, token, lease).finally(() => (renewing = false));
    }, o.renewEveryMs);
    try {
      return await fn(lease.lost.signal);
    } finally {
      clearInterval(timer);
      await client.eval(RELEASE, 1, lockKey, token).then(
        () => outage.ok(),
        (err: unknown) =>
          outage.failed(
            { err, thread: key },
            'could not release the thread lock; it frees itself when the lease expires',
          ),
      );
    }
  }

  /** Resolves with the time the winning SET was sent: the lease runs from no earlier than that. */
  async function acquire(client: LockRedis, lockKey: string, token: string, key: string): Promise<number> {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      const sentAt = Date.now();
      const reply = await client.set(lockKey, token, 'PX', o.leaseMs, 'NX');
      outage.ok();
      if (reply === 'OK') return sentAt;
      const waited = Date.now() - started;
      if (waited >= o.acquireTimeoutMs) throw new ThreadLockTimeoutError(key, waited);
      const ceiling = Math.min(o.pollMaxMs, o.pollMinMs * 2 ** attempt);
      await sleep(ceiling / 2 + Math.random() * (ceiling / 2)); // jitter keeps replicas from polling in step
    }
  }

  async function renew(client: LockRedis, lockKey: string, token: string, lease: Lease): Promise<void> {
    if (lease.lost.signal.aborted) return;
    const attemptedAt = Date.now();
    try {
      const renewed = await client.eval(RENEW, 1, lockKey, token, String(o.leaseMs));
      outage.ok();
      if (Number(renewed) === 1 || Number(renewed) === 2) {
        if (Number(renewed) === 2)
          o.log.warn(
            { lock: lockKey, sinceRenewalMs: attemptedAt - lease.renewedAt },
            'thread lock lease lapsed while this process stalled; taken again (no other turn had the thread)',
          );
        lease.renewedAt = attemptedAt;
        return;
      }
      o.log.warn({ lock: lockKey }, 'thread lock lease lapsed and another turn took the thread; this turn stops');
      lease.lost.abort(new ThreadLockLostError(lockKey));
    } catch (err) {
      // A blip: the next renewal retries. Only once a whole lease has passed without one can
      // another replica have taken over.
      if (attemptedAt - lease.renewedAt < o.leaseMs) {
        outage.failed({ err, lock: lockKey }, 'could not renew the thread lock; retrying');
        return;
      }
      o.log.error(
        { err, lock: lockKey },
        'could not renew the thread lock for a whole lease; another turn may now overlap it',
      );
      lease.lost.abort(new ThreadLockLostError(lockKey));
    }
  }

  return {
    runExclusive,
    get activeKeys() {
      return tails.size;
    },
  };
}

interface Lease {
  lost: AbortController;
  renewedAt: number;
}

function isKvStore(source: KvStore | LockRedis): source is KvStore {
  return 'setIfAbsent' in source;
}
