import type { Logger } from 'pino';
import { Redis, type RedisOptions } from 'ioredis';

/**
 * Every Redis connection of the app comes from here: one library (ioredis), one reconnect policy.
 * With two policies (node-redis backing off to 5 s for state and the lock, ioredis at 0.2 s for the
 * inbox) the inbox came back first and ran entries whose lock and state still said "offline".
 *
 * - `command`: state, thread lock, rate limits and the inbox's producer. A command fails at once
 *   while Redis is away (no offline queue): a turn goes back to the inbox instead of hanging.
 * - `blocking`: BullMQ's worker. It blocks on Redis and must wait out a blip itself, so BullMQ
 *   requires it to retry every request (`maxRetriesPerRequest: null`) and queue while offline.
 */
export type RedisConnectionRole = 'command' | 'blocking';

/**
 * Reconnect delays: 25, 50, 100 ms, then every 200 ms, plus up to 25 ms of jitter so replicas do not
 * knock in step. A try at a Redis that is down costs one refused connection, so the cap is short:
 * every connection is back within about 0.2 s of Redis (bench/redis-recovery.ts).
 */
export function redisReconnectDelayMs(attempt: number): number {
  return Math.min(25 * 2 ** Math.max(0, attempt - 1), 200) + Math.floor(Math.random() * 25);
}

const ROLE_OPTIONS: Record<RedisConnectionRole, RedisOptions> = {
  command: { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true },
  blocking: { enableOfflineQueue: true, maxRetriesPerRequest: null },
};

/** A new ioredis connection to `url`; `command` connections are lazy: the caller connects (and decides how long to wait). */
export function createRedisConnection(
  url: string,
  role: RedisConnectionRole,
  extra: Pick<RedisOptions, 'connectionName' | 'connectTimeout'> = {},
): Redis {
  return new Redis(url, {
    connectTimeout: 5_000,
    ...ROLE_OPTIONS[role],
    ...extra,
    retryStrategy: redisReconnectDelayMs,
  });
}

/**
 * ioredis emits `error` on every failed reconnect attempt (and an unheard `error` would crash the
 * process). One error line per outage, one info line when it is over; ioredis keeps reconnecting.
 * Returns a getter for the latest reason (without the password), for a startup error message.
 */
export function watchRedisConnection(
  client: Redis,
  log: Pick<Logger, 'error' | 'info'>,
  fields: { redis: string; uses: string },
): () => string | undefined {
  const password = client.options.password;
  let down = false;
  let last: string | undefined;
  client.on('error', (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    last = password ? message.replaceAll(password, '[redacted]') : message;
    if (down) return;
    down = true;
    log.error(
      { ...fields, reason: last },
      `Redis connection failed; retrying with backoff (${fields.uses} fail meanwhile)`,
    );
  });
  client.on('ready', () => {
    if (down) log.info(fields, 'Redis connection restored');
    down = false;
  });
  return () => last;
}

/** Resolves true once the connection is ready, false after `timeoutMs` (it keeps retrying meanwhile). */
export async function redisReadyWithin(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return true;
  let onReady: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<boolean>((resolve) => {
      onReady = () => resolve(true);
      client.once('ready', onReady);
      timer = setTimeout(() => resolve(false), timeoutMs);
      // A lazy connection starts here; its first failure rejects connect(), the retries go on.
      if (client.status === 'wait') client.connect().catch(() => undefined);
    });
  } finally {
    clearTimeout(timer);
    if (onReady) client.off('ready', onReady);
  }
}

/**
 * Whether Redis keeps what it acked across a restart and under memory pressure, read with `CONFIG
 * GET`: `appendonly yes` or a non-empty `save` (RDB snapshots) persist; any `maxmemory-policy` but
 * `noeviction` may drop keys (BullMQ requires noeviction). A managed Redis may refuse (rename) CONFIG:
 * then it is `unknown`, which does not fail anything.
 */
export type RedisPersistence =
  { state: 'ok' } | { state: 'unknown'; reason: string } | { state: 'unsafe'; problem: string };

export async function readRedisPersistence(client: Redis): Promise<RedisPersistence> {
  const value = async (name: string) => {
    const pair = (await client.call('CONFIG', 'GET', name)) as unknown;
    return Array.isArray(pair) && pair.length >= 2 ? String(pair[1]) : undefined;
  };
  let appendonly: string | undefined, save: string | undefined, policy: string | undefined;
  try {
    [appendonly, save, policy] = await Promise.all([value('appendonly'), value('save'), value('maxmemory-policy')]);
  } catch (err) {
    // Lost the connection meanwhile: the next 'ready' checks again.
    if (client.status !== 'ready') throw err;
    return { state: 'unknown', reason: err instanceof Error ? err.message.split('\n')[0]! : String(err) };
  }
  const problems: string[] = [];
  if (appendonly !== 'yes' && !save?.trim())
    problems.push(`no persistence (appendonly ${appendonly ?? '?'}, save "${save ?? ''}"): a restart loses them`);
  if (policy !== undefined && policy !== 'noeviction')
    problems.push(`maxmemory-policy ${policy} evicts keys when memory is full`);
  return problems.length ? { state: 'unsafe', problem: problems.join('; ') } : { state: 'ok' };
}

const persistenceOf = new WeakMap<Redis, RedisPersistence>();

/**
 * The latest persistence check of `client` (see watchRedisPersistence); undefined before the first.
 * An unsafe finding is read again (an operator may fix it with CONFIG SET, no reconnect), so a
 * readiness probe that trusts it sees the fix at once; a safe one waits for the next reconnect.
 */
export async function redisPersistence(client: Redis): Promise<RedisPersistence | undefined> {
  const last = persistenceOf.get(client);
  if (last?.state !== 'unsafe' || client.status !== 'ready') return last;
  const now = await readRedisPersistence(client).catch(() => last);
  persistenceOf.set(client, now);
  return now;
}

/**
 * Checks persistence now (when ready) and on every reconnect: a Redis may come back with another
 * configuration (a failover, a restart without its config file). One error line per unsafe finding
 * and one warn line the first time CONFIG is refused. Resolves after the first check.
 */
export async function watchRedisPersistence(
  client: Redis,
  log: Pick<Logger, 'error' | 'warn'>,
  fields: { redis: string; uses: string },
): Promise<void> {
  let refusedSaid = false;
  const check = async () => {
    const found = await readRedisPersistence(client);
    const before = persistenceOf.get(client);
    persistenceOf.set(client, found);
    if (found.state === 'unsafe' && (before?.state !== 'unsafe' || before.problem !== found.problem))
      log.error(
        { ...fields, problem: found.problem },
        `Redis can lose acknowledged events (${fields.uses}) that were still waiting: ${found.problem}. Turn on appendonly (or RDB save) and maxmemory-policy noeviction`,
      );
    if (found.state === 'unknown' && !refusedSaid) {
      refusedSaid = true;
      log.warn(
        { ...fields, reason: found.reason },
        'Redis refused CONFIG GET (a managed Redis?): whether it persists acknowledged events is unknown; make sure it uses AOF or RDB and noeviction',
      );
    }
  };
  client.on('ready', () => void check().catch(() => undefined));
  if (client.status === 'ready') await check().catch(() => undefined);
}
