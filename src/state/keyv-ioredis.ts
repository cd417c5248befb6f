import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import type { KeyvStoreAdapter, StoredData } from 'keyv';

/**
 * keyv's store on an ioredis connection, writing what @keyv/redis wrote: the serialized
 * `{value, expires}` under `<namespace>::<key>`, with a PX TTL. Ours because no maintained adapter
 * fits: @keyv/redis is node-redis only, and @keyv/valkey (iovalkey, API-compatible with ioredis)
 * stores keys as `<namespace>:<key>` and adds each to a never-expiring set per namespace (or uses
 * another prefix without it), so a replica mid-deploy would not find what the other wrote.
 * Errors are not caught: keyv rethrows them (throwOnErrors), so an outage never reads as "no value".
 */
export function createKeyvIoredisStore(
  client: Redis,
  namespace: string,
): KeyvStoreAdapter & { keyOf(key: string): string } {
  const keyOf = (key: string) => `${namespace}::${key}`;
  const events = new EventEmitter();
  const store = {
    opts: { dialect: 'redis' },
    namespace,
    keyOf,
    async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
      return ((await client.get(keyOf(key))) ?? undefined) as StoredData<Value> | undefined;
    },
    async set(key: string, value: string, ttl?: number): Promise<void> {
      if (ttl) await client.set(keyOf(key), value, 'PX', ttl);
      else await client.set(keyOf(key), value);
    },
    async delete(key: string): Promise<boolean> {
      return (await client.unlink(keyOf(key))) > 0;
    },
    /** Every key of the namespace (SCAN, never KEYS: it does not block Redis). */
    async clear(): Promise<void> {
      for await (const keys of client.scanStream({ match: `${namespace}::*`, count: 500 }) as AsyncIterable<string[]>)
        if (keys.length) await client.unlink(...keys);
    },
    on(event: string, listener: (...args: unknown[]) => void) {
      events.on(event, listener);
      return store;
    },
  };
  return store;
}
