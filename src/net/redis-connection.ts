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
