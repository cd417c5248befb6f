import { DelayedError, Queue, WaitingError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { ConfigError } from '../config.js';
import type { Logger } from '../logger.js';
import {
  DEFAULT_INBOX_OPTIONS,
  InboxUnavailableError,
  type AddResult,
  type DeliveryFn,
  type Inbox,
  type InboxEntry,
  type InboxOptions,
} from './inbox.js';

export interface RedisInboxOptions extends InboxOptions {
  /** How long a runner's claim on an entry lives without renewal: a dead replica's entries run again after this. */
  leaseMs: number;
  /** Key prefix and queue name; tests pass their own. */
  prefix: string;
  queue: string;
}

export const DEFAULT_REDIS_INBOX: RedisInboxOptions = {
  ...DEFAULT_INBOX_OPTIONS,
  leaseMs: 6_000,
  prefix: 'switchboard',
  queue: 'turns',
};

/**
 * The durable inbox: BullMQ on Redis. BullMQ keeps the entries (a job each, its id the dedup
 * key), leases them to workers, renews the lease while a turn runs and moves a dead worker's
 * entries back to waiting (stalled-job recovery), on whichever replica is alive.
 *
 * What BullMQ (open source) does not do is order jobs per group, so each thread keeps its
 * arrival order in a sorted set next to the queue: `add` puts the id in it (atomically with the
 * dedup and bound checks below), and a worker only runs the entry at its head; a worker that
 * picked a later entry puts it back for a moment. When the head finishes it is removed and the
 * next one is promoted.
 */
export async function createRedisInbox(
  url: string,
  log: Logger,
  options: Partial<RedisInboxOptions> = {},
): Promise<Inbox> {
  const o = { ...DEFAULT_REDIS_INBOX, ...options };
  // Producers fail fast (an adapter must answer "not recorded" so the platform retries); the
  // worker's connection waits out blips, as BullMQ requires.
  const producer = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: true,
    connectTimeout: 5_000,
  });
  producer.on('error', (err) => log.warn({ err }, 'inbox redis connection error'));
  try {
    await producer.connect();
  } catch (err) {
    producer.disconnect();
    throw new ConfigError([
      `REDIS_URL: the inbox cannot reach Redis (${err instanceof Error ? err.message.split('\n')[0] : String(err)}). Check REDIS_URL and that Redis is running.`,
    ]);
  }
  const queue = new Queue(o.queue, {
    connection: producer,
    prefix: o.prefix,
    defaultJobOptions: {
      attempts: 1,
      // Finished jobs are kept for the dedup window: a late retry of the same id is a no-op.
      removeOnComplete: { age: Math.ceil(o.dedupTtlMs / 1000) },
      removeOnFail: { age: 7 * 86_400 },
    },
  });
  queue.on('error', (err) => log.warn({ err }, 'inbox queue error'));
  const k = (kind: string, id: string) => `${o.prefix}:inbox:${o.queue}:${kind}:${id}`;
  const handlers = new Map<string, DeliveryFn>();
  let worker: Worker | undefined;
  const running = new Map<string, AbortController>();

  /**
   * Atomically: an id already answered is a duplicate; one already waiting is a duplicate whose
   * job is re-added anyway (idempotent: it heals a crash between the two writes); a thread at
   * its bound refuses; otherwise the id joins the thread's order with the next sequence number.
   */
  const GATE = `
    if redis.call('exists', KEYS[3]) == 1 then return 'done' end
    if redis.call('zscore', KEYS[1], ARGV[1]) then return 'queued' end
    if redis.call('zcard', KEYS[1]) >= tonumber(ARGV[2]) then return 'full' end
    local n = redis.call('incr', KEYS[2])
    redis.call('pexpire', KEYS[2], ARGV[3])
    redis.call('zadd', KEYS[1], n, ARGV[1])
    redis.call('pexpire', KEYS[1], ARGV[3])
    return 'added'`;
  /** Marks an entry answered and takes it out of its thread's order, in one step. */
  const FINISH = `
    redis.call('set', KEYS[1], '1', 'PX', ARGV[2])
    redis.call('zrem', KEYS[2], ARGV[1])
    return redis.call('zrange', KEYS[2], 0, 0)`;

  async function add<P>(entry: InboxEntry<P>): Promise<AddResult> {
    const jobId = toJobId(entry.id);
    try {
      const gate = String(
        await producer.eval(
          GATE,
          3,
          k('order', entry.thread),
          k('seq', entry.thread),
          k('done', jobId),
          jobId,
          o.maxPerThread,
          o.dedupTtlMs * 2,
        ),
      );
      if (gate === 'done') return 'duplicate';
      if (gate === 'full') return 'full';
      await queue.add('turn', entry, { jobId });
      return gate === 'added' ? 'added' : 'duplicate';
    } catch (err) {
      throw new InboxUnavailableError(err);
    }
  }

  /**
   * One round trip at the start of a run: an answered entry is skipped; an entry that is not
   * the head of its thread's order waits (the head is named, so a dead head can be cleared);
   * otherwise the run is counted and what earlier runs recorded is returned.
   */
  const BEGIN = `
    if redis.call('exists', KEYS[1]) == 1 then return {'done'} end
    local head = redis.call('zrange', KEYS[2], 0, 0)[1]
    if head and head ~= ARGV[1] then
      return {'wait', head, redis.call('exists', ARGV[3] .. head)}
    end
    local n = redis.call('incr', KEYS[3])
    redis.call('pexpire', KEYS[3], ARGV[2])
    local out = {'run', tostring(n)}
    for _, id in ipairs(redis.call('lrange', KEYS[4], 0, -1)) do out[#out + 1] = id end
    return out`;

  /** Whether the head of a thread's order can still run: waiting, delayed or running somewhere. */
  async function headAlive(head: string, headDone: boolean): Promise<boolean> {
    if (headDone) return false;
    const state = await queue.getJobState(head);
    return (
      state === 'waiting' ||
      state === 'active' ||
      state === 'delayed' ||
      state === 'prioritized' ||
      state === 'waiting-children'
    );
  }

  async function process(job: Job<InboxEntry>, token?: string): Promise<void> {
    const entry = job.data;
    const jobId = job.id ?? toJobId(entry.id);
    const orderKey = k('order', entry.thread);
    let begun: string[] = [];
    for (let i = 0; ; i++) {
      begun = (await producer.eval(
        BEGIN,
        4,
        k('done', jobId),
        orderKey,
        k('runs', jobId),
        k('posted', jobId),
        jobId,
        o.dedupTtlMs,
        k('done', ''),
      )) as string[];
      if (begun[0] !== 'wait') break;
      const head = begun[1] ?? '';
      if (i < 20 && !(await headAlive(head, Number(begun[2]) === 1))) {
        await producer.zrem(orderKey, head); // answered, failed or gone: it holds nobody up
        continue;
      }
      // An earlier message of this thread is still waiting or running: try again shortly.
      await job.moveToDelayed(Date.now() + 100 + Math.floor(Math.random() * 150), token);
      throw new DelayedError();
    }
    if (begun[0] === 'done') return;
    const handler = handlers.get(entry.platform);
    if (!handler) throw new Error(`no delivery function for ${entry.platform}`);
    const [, runs, ...recorded] = begun;
    const attempt = Number(runs);
    const recordedKey = k('posted', jobId);
    const abort = new AbortController();
    running.set(jobId, abort);
    try {
      await handler({
        entry,
        attempt,
        recorded,
        signal: abort.signal,
        record: async (id) => {
          await producer.multi().rpush(recordedKey, id).pexpire(recordedKey, o.dedupTtlMs).exec();
        },
      });
    } catch (err) {
      if (!abort.signal.aborted) log.error({ err, entry: entry.id }, 'inbox entry failed; it is not retried');
    } finally {
      running.delete(jobId);
    }
    if (abort.signal.aborted) {
      // Shutting down mid-turn: hand the entry back at once instead of waiting for its lease.
      await job.moveToWait(token);
      throw new WaitingError();
    }
    const [next] = (await producer.eval(FINISH, 2, k('done', jobId), orderKey, jobId, o.dedupTtlMs)) as string[];
    if (next)
      await queue
        .getJob(next)
        .then((j) => j?.promote())
        .catch(() => undefined); // it may already be waiting
  }

  return {
    kind: 'redis',
    add,
    deliver(platform, fn) {
      handlers.set(platform, fn as DeliveryFn);
    },
    async start() {
      const connection = new Redis(url, { maxRetriesPerRequest: null });
      connection.on('error', (err) => log.warn({ err }, 'inbox worker redis connection error'));
      worker = new Worker<InboxEntry>(o.queue, process, {
        connection,
        prefix: o.prefix,
        concurrency: o.concurrency,
        lockDuration: o.leaseMs,
        // Any live replica checks for dead workers' entries this often.
        stalledInterval: Math.max(500, Math.floor(o.leaseMs / 2)),
        maxStalledCount: 5,
        autorun: false,
      });
      worker.on('error', (err) => log.warn({ err }, 'inbox worker error'));
      worker.on('stalled', (jobId) => log.warn({ entry: jobId }, 'inbox entry whose runner died is run again'));
      void worker.run();
      await worker.waitUntilReady();
    },
    async stop(drainMs = 10_000) {
      const w = worker;
      if (w) {
        const closing = w.close();
        const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), drainMs).unref());
        if ((await Promise.race([closing, timer])) === 'timeout') {
          log.warn({ running: running.size }, 'turns still running at shutdown are handed back to the inbox');
          for (const abort of running.values()) abort.abort(new Error('shutting down'));
          await closing;
        }
        await (await w.client).quit().catch(() => undefined);
      }
      await queue.close();
      await producer.quit().catch(() => undefined);
    },
    async stats() {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      const pending = (counts.waiting ?? 0) + (counts.active ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0);
      // The oldest of each list's first job (each list is kept in insertion order).
      const firsts = await Promise.all(
        (['active', 'waiting', 'delayed', 'prioritized'] as const).map((t) => queue.getJobs([t], 0, 0, true)),
      );
      const oldest = Math.min(
        ...firsts.flat().map((j) => (j?.data as InboxEntry | undefined)?.receivedAt ?? j?.timestamp ?? Infinity),
      );
      return {
        pending,
        running: counts.active ?? 0,
        oldestAgeMs: Number.isFinite(oldest) ? Math.max(0, Date.now() - oldest) : 0,
      };
    },
  };
}

/** BullMQ job ids may not contain ':'. */
function toJobId(id: string): string {
  return id.replaceAll('%', '%25').replaceAll(':', '%3A');
}
