import type { RedisClientType } from '@keyv/redis';

// What the memory and Redis stores share: the port's types and the Redis URL as a log line shows it. Apart from kv.ts and redis-kv.ts so that the Redis client (and its
// dependencies) loads only when REDIS_URL is set.

/**
 * The node-redis client behind the store, for the few callers that need raw commands (the thread
 * lock): what `createClient({ url, socket })` returns (no modules, functions or scripts, RESP2).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- node-redis spells "none" as {}
export type RedisClient = RedisClientType<{}, {}, {}, 2, {}>;

/**
 * A small key-value port over keyv. Values are JSON-serialisable; TTLs are in milliseconds.
 * Memory by default (one process), Redis when REDIS_URL is set (shared by every replica).
 */
export interface KvStore {
  readonly backend: 'memory' | 'redis';
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown, ttlMs?: number): Promise<void>;
  /** True when a live value was removed. */
  delete(key: string): Promise<boolean>;
  /** Stores the value only when the key holds no live value; true for the one caller that won. Atomic. */
  setIfAbsent(key: string, value: unknown, ttlMs: number): Promise<boolean>;
  /** The connected Redis client, when Redis backs the store. */
  readonly redis: RedisClient | undefined;
  close(): Promise<void>;
}

export interface KvOptions {
  /** Redis key prefix (`<namespace>::<key>`); tests pass their own to stay apart. */
  namespace?: string;
  /** How long to wait for Redis at startup before giving up with a clear error. */
  connectTimeoutMs?: number;
}

/** `redis://host:port/db` with no credentials, for log lines and error messages. */
export function describeRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.hostname}:${u.port || '6379'}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return '(unparseable REDIS_URL)';
  }
}
