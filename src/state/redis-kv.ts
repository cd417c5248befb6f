import KeyvRedis, { createClient, type RedisClientType } from '@keyv/redis';
import { defaultDeserialize, defaultSerialize } from '@keyv/serialize';
import { Keyv } from 'keyv';
import { ConfigError } from '../config.js';
import { scrubSecrets, type Logger } from '../logger.js';
import { describeRedisUrl, type KvOptions, type KvStore, type RedisClient } from './kv-shared.js';

/**
 * A string value starting with ':' (`[`, `:` or `,` then `":`): keyv's own format escapes those
 * (and marks Buffers `:base64:`). Values without one are plain JSON in both formats.
 */
const KEYV_ESCAPED = /[[:,]":/;

/**
 * Keyv's serialization, at native JSON speed: keyv's own serializer walks every value in
 * JavaScript and its reader revives every string (together a fifth of a turn's CPU in
 * bench/core-overhead.ts). Values that need keyv's escaping still get it, so what is stored
 * reads the same by this code and by keyv's default (other replicas mid-deploy, old values).
 */
const fastKeyvSerialize = (data: unknown): string => {
  const raw = JSON.stringify(data);
  return KEYV_ESCAPED.test(raw) ? defaultSerialize(data) : raw;
};
const fastKeyvDeserialize = <T>(raw: string): T =>
  (KEYV_ESCAPED.test(raw) ? defaultDeserialize(raw) : JSON.parse(raw)) as T;

/** The store on Redis (REDIS_URL), shared by every replica; see kv.ts. */
export async function createRedisKv(url: string, log: Logger, options: KvOptions): Promise<KvStore> {
  const namespace = options.namespace ?? 'switchboard';
  const where = describeRedisUrl(url);
  const password = safePassword(url);
  const client = newRedisClient(url);
  const lastError = watchConnection(client, where, password, log);
  if (!(await connectWithin(client, options.connectTimeoutMs ?? 10_000))) {
    if (client.isOpen) client.destroy();
    throw new ConfigError([
      `REDIS_URL: Redis at ${where} is unreachable (${lastError() ?? 'no answer'}). ` +
        'Check REDIS_URL and that Redis is running, or unset REDIS_URL to keep state in memory.',
    ]);
  }
  log.info({ backend: 'redis', redis: where, namespace }, 'thread state is kept in Redis');

  // The cast: createClient() is typed for RESP2 without modules, the adapter for node-redis's
  // widest generic client; the two types do not unify (a node-redis v5 typing gap), the object is the same.
  const adapter = new KeyvRedis(client as unknown as RedisClientType, {
    namespace,
    throwOnConnectError: true,
    throwOnErrors: true,
  });
  // Same wiring as @keyv/redis's createKeyv: the adapter prefixes keys, keyv does not.
  // throwOnErrors: a Redis failure must reach the caller, not read as "no value" (which would
  // make a thread forget its history and then overwrite it).
  const keyv = new Keyv(adapter, {
    namespace,
    useKeyPrefix: false,
    throwOnErrors: true,
    serialize: fastKeyvSerialize,
    deserialize: fastKeyvDeserialize,
  });
  const serialize = keyv.serialize ?? JSON.stringify;

  // After close(), @keyv/redis would quietly reconnect on the next call and leak the connection.
  let closed = false;
  const ensureOpen = () => {
    if (closed) throw new Error('the kv store is closed');
  };

  return {
    backend: 'redis',
    async get<T>(key: string) {
      ensureOpen();
      return (await keyv.get<T>(key)) ?? undefined;
    },
    async set(key, value, ttlMs) {
      ensureOpen();
      await keyv.set(key, value, ttlMs);
    },
    async delete(key) {
      ensureOpen();
      return keyv.delete(key);
    },
    async setIfAbsent(key, value, ttlMs) {
      ensureOpen();
      // keyv has no conditional write; SET NX PX is the atomic one. The value is written in
      // keyv's own format so `get` reads it like any other.
      const raw = await serialize({ value, expires: Date.now() + ttlMs });
      const reply = await client.set(adapter.createKeyPrefix(key, namespace), raw, {
        condition: 'NX',
        expiration: { type: 'PX', value: ttlMs },
      });
      return reply === 'OK';
    },
    redis: client,
    async close() {
      closed = true;
      if (client.isReady) await client.close();
      else if (client.isOpen) client.destroy();
    },
  };
}

function newRedisClient(url: string) {
  return createClient({
    url,
    // Fail a command at once while disconnected instead of queueing it: a turn then reports
    // "state unavailable" rather than hanging until the turn timeout.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 5_000,
      reconnectStrategy: (attempt) => Math.min(2 ** attempt * 100, 5_000) + Math.random() * 100,
    },
  });
}

function safePassword(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

function safeReason(err: unknown, password: string | undefined): string {
  const message = err instanceof Error ? err.message : String(err);
  const scrubbed = scrubSecrets(message);
  return password ? scrubbed.replaceAll(password, '[redacted]') : scrubbed;
}

/**
 * node-redis emits `error` on every failed reconnect attempt, and an unheard `error` would crash
 * the process. Log one line per outage, one when it recovers; node-redis keeps reconnecting.
 * Returns a getter for the latest reason, for the startup error message.
 */
function watchConnection(
  client: RedisClient,
  where: string,
  password: string | undefined,
  log: Logger,
): () => string | undefined {
  let down = false;
  let last: string | undefined;
  client.on('error', (err: unknown) => {
    last = safeReason(err, password);
    if (down) return;
    down = true;
    log.error(
      { redis: where, reason: last },
      'Redis connection failed; retrying with backoff (state operations fail meanwhile)',
    );
  });
  client.on('ready', () => {
    if (down) log.info({ redis: where }, 'Redis connection restored');
    down = false;
  });
  return () => last;
}

/** connect() keeps retrying while Redis is down; this gives startup a deadline. */
async function connectWithin(client: RedisClient, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([
      client.connect().then(
        () => true,
        () => false,
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
