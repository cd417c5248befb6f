import type { Redis } from 'ioredis';

// What the memory and Redis stores share: the port's types and the Redis URL as a log line shows it. Apart from kv.ts and redis-kv.ts so that the Redis client (and its
// dependencies) loads only when REDIS_URL is set.

/**
 * The ioredis connection behind the store, for the callers that need raw commands: the thread
 * lock, the rate limits and the health check share it (src/net/redis-connection.ts, `command`).
 */
export type RedisClient = Redis;

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
  /** The connected Redis client, when Redis backs the store; the thread lock and rate limits share it. */
  readonly redis: RedisClient | undefined;
  close(): Promise<void>;
}

export interface KvOptions {
  /** Redis key prefix (`<namespace>::<key>`); tests pass their own to stay apart. */
  namespace?: string;
  /** How long to wait for Redis at startup before giving up with a clear error. */
  connectTimeoutMs?: number;
}

export { describeRedisUrl } from '../net/redis-url.js';
