import { Keyv } from 'keyv';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config/index.js';
import type { Logger } from '../telemetry/logger.js';
import type { KvOptions, KvStore } from './kv-shared.js';

export { describeRedisUrl, type KvOptions, type KvStore, type RedisClient } from './kv-shared.js';

export async function createKv(
  config: Pick<Config, 'REDIS_URL'>,
  log: Logger,
  options: KvOptions = {},
): Promise<KvStore> {
  if (!config.REDIS_URL) {
    log.info({ backend: 'memory' }, 'thread state is kept in memory (set REDIS_URL to share it between replicas)');
    return createMemoryKv();
  }
  // Imported only when used: the Redis client and its dependencies are a tenth of a start-up.
  const { createRedisKv } = await import('./redis-kv.js');
  return createRedisKv(config.REDIS_URL, log, options);
}

/**
 * The in-memory store behind keyv: an LRU with a size bound and per-key TTLs (lru-cache), so
 * neither one-off keys (dedup claims) nor a flood of new threads can grow it without limit.
 * Keyv hands `set` a TTL in milliseconds; lru-cache takes it as an option. Its clock is `now`,
 * read on every check (`ttlResolution: 0`: lru-cache would otherwise reuse a reading for a
 * millisecond of real time, so a clock moved by a test would not be seen at once).
 */
class BoundedStore {
  private readonly lru: LRUCache<string, NonNullable<unknown>>;
  constructor(max: number, now: () => number) {
    this.lru = new LRUCache<string, NonNullable<unknown>>({ max, perf: { now }, ttlResolution: 0 });
  }
  get(key: string): unknown {
    return this.lru.get(key);
  }
  has(key: string): boolean {
    return this.lru.has(key);
  }
  set(key: string, value: unknown, ttlMs?: number): this {
    if (value === undefined || value === null) this.lru.delete(key);
    else this.lru.set(key, value, ttlMs && ttlMs > 0 ? { ttl: ttlMs } : undefined);
    return this;
  }
  delete(key: string): boolean {
    return this.lru.delete(key);
  }
  clear(): void {
    this.lru.clear();
  }
  get size(): number {
    return this.lru.size;
  }
}

/** Keys the in-memory store keeps at most (threads, follows, claims): the least recently used go first. */
export const MEMORY_KV_MAX_KEYS = 100_000;

/**
 * `now` is the clock TTLs are measured on (a test passes its own to expire a key without waiting).
 * Keyv also stamps each value with `Date.now()` and drops it once that is past: with another clock,
 * a key expires by whichever clock says so first.
 */
export function createMemoryKv(maxKeys = MEMORY_KV_MAX_KEYS, now: () => number = Date.now): KvStore {
  const map = new BoundedStore(maxKeys, now);
  // Keyv calls only get/set(key, value, ttl)/delete/clear/has on a Map store; its type asks for a whole Map.
  // Plain JSON: nothing but this process reads these values, so keyv's escaped format (kept on
  // Redis for other replicas and older values) buys nothing here, and its scan cost a turn ~10 µs.
  const keyv = new Keyv(map as unknown as Map<string, unknown>, {
    useKeyPrefix: false,
    serialize: JSON.stringify,
    deserialize: JSON.parse,
  });
  // Keys being written by setIfAbsent: the check and the claim happen with no await between
  // them, so two callers in this process cannot both see the key as absent.
  const claiming = new Set<string>();
  return {
    backend: 'memory',
    get: async <T>(key: string) => (await keyv.get<T>(key)) ?? undefined,
    set: async (key, value, ttlMs) => void (await keyv.set(key, value, ttlMs)),
    delete: (key) => keyv.delete(key),
    async setIfAbsent(key, value, ttlMs) {
      if (claiming.has(key) || map.has(key)) return false;
      claiming.add(key);
      try {
        await keyv.set(key, value, ttlMs);
      } finally {
        claiming.delete(key);
      }
      return true;
    },
    redis: undefined,
    close: async () => map.clear(),
  };
}
