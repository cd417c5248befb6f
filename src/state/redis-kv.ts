import { defaultDeserialize, defaultSerialize } from '@keyv/serialize';
import { Keyv } from 'keyv';
import { ConfigError } from '../config/index.js';
import { createRedisConnection, redisReadyWithin, watchRedisConnection } from '../net/redis-connection.js';
import { scrubSecrets, type Logger } from '../telemetry/logger.js';
import { createKeyvIoredisStore } from './keyv-ioredis.js';
import { describeRedisUrl, type KvOptions, type KvStore } from './kv-shared.js';

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

/**
 * The store on Redis (REDIS_URL), shared by every replica; see kv.ts. Its connection is the one the
 * thread lock and the rate limits use too (`redis`): one connection, one outage, one recovery.
 */
export async function createRedisKv(url: string, log: Logger, options: KvOptions): Promise<KvStore> {
  const namespace = options.namespace ?? 'switchboard';
  const where = describeRedisUrl(url);
  const client = createRedisConnection(url, 'command');
  const lastError = watchRedisConnection(client, log, {
    redis: where,
    uses: 'thread state, thread locks, rate limits and inbox writes',
  });
  if (!(await redisReadyWithin(client, options.connectTimeoutMs ?? 10_000))) {
    client.disconnect();
    throw new ConfigError([
      `REDIS_URL: Redis at ${where} is unreachable (${scrubSecrets(lastError() ?? 'no answer')}). ` +
        'Check REDIS_URL and that Redis is running, or unset REDIS_URL to keep state in memory.',
    ]);
  }
  log.info({ backend: 'redis', redis: where, namespace }, 'thread state is kept in Redis');

  const store = createKeyvIoredisStore(client, namespace);
  // The store prefixes keys, keyv does not. throwOnErrors: a Redis failure must reach the caller,
  // not read as "no value" (which would make a thread forget its history and then overwrite it).
  const keyv = new Keyv(store, {
    namespace,
    useKeyPrefix: false,
    throwOnErrors: true,
    serialize: fastKeyvSerialize,
    deserialize: fastKeyvDeserialize,
  });

  // After close(), fail plainly rather than with ioredis's "Connection is closed".
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
      const raw = fastKeyvSerialize({ value, expires: Date.now() + ttlMs });
      return (await client.set(store.keyOf(key), raw, 'PX', ttlMs, 'NX')) === 'OK';
    },
    redis: client,
    async close() {
      closed = true;
      if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
      else client.disconnect();
    },
  };
}
