import type { Redis } from 'ioredis';
import type { Config } from '../config/index.js';
import type { Logger } from '../telemetry/logger.js';
import type { Inbox } from './inbox.js';
import { createMemoryInbox } from './memory-inbox.js';

export * from './inbox.js';

type InboxConfig = Pick<
  Config,
  | 'REDIS_URL'
  | 'INBOX_CONCURRENCY'
  | 'INBOX_THREAD_QUEUE_MAX'
  | 'INBOX_LEASE_MS'
  | 'INBOX_QUEUE'
  | 'INBOX_ORDER_SETTLE_MS'
  | 'INBOX_RETRY_ATTEMPTS'
  | 'INBOX_RETRY_MAX_MS'
>;

/**
 * Redis (durable, shared by replicas) when REDIS_URL is set, else in process. `redis`: the
 * connection to write on, shared with the thread state (see createRedisInbox).
 */
export async function createInbox(config: InboxConfig, log: Logger, redis?: Redis): Promise<Inbox> {
  const options = {
    concurrency: config.INBOX_CONCURRENCY,
    maxPerThread: config.INBOX_THREAD_QUEUE_MAX,
    orderSettleMs: config.INBOX_ORDER_SETTLE_MS,
    retryAttempts: config.INBOX_RETRY_ATTEMPTS,
    retryMaxMs: config.INBOX_RETRY_MAX_MS,
  };
  if (!config.REDIS_URL) {
    log.info(
      { inbox: 'memory' },
      'events are queued in memory: a restart loses unanswered ones (set REDIS_URL for a durable inbox)',
    );
    return createMemoryInbox(log, options);
  }
  // Imported only when used: BullMQ and ioredis are a tenth of a start-up.
  const { createRedisInbox } = await import('./redis-inbox.js');
  return createRedisInbox(
    config.REDIS_URL,
    log,
    { ...options, leaseMs: config.INBOX_LEASE_MS, queue: config.INBOX_QUEUE },
    redis,
  );
}
