import { hostname } from 'node:os';
import { pid } from 'node:process';
import { DelayedError, Queue, WaitingError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { ConfigError } from '../config/index.js';
import { createRedisConnection, watchRedisConnection, watchRedisPersistence } from '../net/redis-connection.js';
import { describeRedisUrl } from '../net/redis-url.js';
import type { Logger } from '../telemetry/logger.js';
import { watchRedisEpoch } from './redis-epoch.js';
import {
  DEFAULT_INBOX_OPTIONS,
  InboxUnavailableError,
  type AddResult,
  type DeliveryFn,
  type Inbox,
  type InboxEntry,
  type InboxOptions,
  orderOf,
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
 * order in a sorted set next to the queue, scored by the platform's timestamp (`orderOf`; ties
 * by arrival number): `add` puts the id in it (atomically with the dedup and bound checks
 * below), and a worker only runs the entry at its head while no other entry of the thread runs
 * (the thread's `running` key); a worker that picked another entry puts it back for a moment.
 * When the running entry finishes it is removed and the next head is promoted.
 */
export async function createRedisInbox(
  url: string,
  log: Logger,
  options: Partial<RedisInboxOptions> = {},
  /**
   * A connected `command` connection to write on (the app passes the thread state's: then the
   * inbox accepts events again exactly when state, lock and limits answer again). Its owner closes it.
   */
  shared?: Redis,
): Promise<Inbox> {
  const o = { ...DEFAULT_REDIS_INBOX, ...options };
  // Producers fail fast (an adapter must answer "not recorded" so the platform retries); the
  // worker's connection waits out blips, as BullMQ requires. All reconnect on one policy.
  const where = describeRedisUrl(url);
  const producer = shared ?? createRedisConnection(url, 'command');
  if (!shared) {
    watchRedisConnection(producer, log, { redis: where, uses: 'inbox writes' });
    try {
      await producer.connect();
    } catch (err) {
      producer.disconnect();
      throw new ConfigError([
        `REDIS_URL: the inbox cannot reach Redis (${err instanceof Error ? err.message.split('\n')[0] : String(err)}). Check REDIS_URL and that Redis is running.`,
      ]);
    }
  }
  // Said at start and on every reconnect: what this Redis may lose, and whether it lost it.
  await watchRedisPersistence(producer, log, { redis: where, uses: 'the inbox' });
  await watchRedisEpoch(producer, `${o.prefix}:inbox:${o.queue}:epoch`, log, { redis: where });
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
  // While the connection is down its own line has told the outage; these would repeat it per retry.
  queue.on('error', (err) => {
    if (producer.status === 'ready') log.warn({ err }, 'inbox queue error');
  });
  const k = (kind: string, id: string) => `${o.prefix}:inbox:${o.queue}:${kind}:${id}`;
  const handlers = new Map<string, DeliveryFn>();
  let worker: Worker | undefined;
  // The worker's own connection and BullMQ's blocking duplicate of it: a stop that cannot finish
  // in time cuts both (see `stop`).
  let workerClients: Redis[] = [];
  const running = new Map<string, AbortController>();

  /** Lua: the id at the head of a thread's order (lowest `order`, ties by arrival number), or nil. */
  const HEAD = `
    local function head(order, seqs)
      local first = redis.call('zrange', order, 0, 0, 'WITHSCORES')
      if #first == 0 then return nil end
      local tied = redis.call('zrangebyscore', order, first[2], first[2])
      local best, bestSeq = nil, nil
      for _, id in ipairs(tied) do
        local n = tonumber(redis.call('hget', seqs, id) or '0')
        if best == nil or n < bestSeq then best, bestSeq = id, n end
      end
      return best
    end
    local function nowMs()
      local t = redis.call('time')
      return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    end`;

  /**
   * Atomically: an id already answered is a duplicate; one already waiting is a duplicate whose
   * job is re-added anyway (idempotent: it heals a crash between the two writes); a thread at
   * its bound refuses; otherwise the id joins the thread's order at its `order` score, with the
   * next arrival number (for ties) and its arrival time (Redis's clock, for the settle window).
   */
  const GATE = `${HEAD}
    if redis.call('exists', KEYS[3]) == 1 then return 'done' end
    if redis.call('zscore', KEYS[1], ARGV[1]) then return 'queued' end
    if redis.call('zcard', KEYS[1]) >= tonumber(ARGV[2]) then return 'full' end
    local n = redis.call('incr', KEYS[2])
    redis.call('pexpire', KEYS[2], ARGV[3])
    redis.call('zadd', KEYS[1], ARGV[4], ARGV[1])
    redis.call('pexpire', KEYS[1], ARGV[3])
    redis.call('hset', KEYS[4], ARGV[1], n)
    redis.call('pexpire', KEYS[4], ARGV[3])
    local settle = tonumber(ARGV[5])
    if settle > 0 then
      local now = nowMs()
      redis.call('zremrangebyscore', KEYS[5], '-inf', '(' .. (now - settle))
      redis.call('zadd', KEYS[5], now, ARGV[1])
      redis.call('pexpire', KEYS[5], settle * 2 + 1000)
    end
    return 'added'`;
  /** Marks an entry answered, takes it out of its thread's order and frees the thread, in one step; returns the next head. */
  const FINISH = `${HEAD}
    redis.call('set', KEYS[1], '1', 'PX', ARGV[2])
    redis.call('zrem', KEYS[2], ARGV[1])
    redis.call('hdel', KEYS[3], ARGV[1])
    if redis.call('get', KEYS[4]) == ARGV[1] then redis.call('del', KEYS[4]) end
    local h = head(KEYS[2], KEYS[3])
    if h then return {h} end
    return {}`;
  /** Takes an entry that can no longer run (answered, failed, gone) out of its thread's order. */
  const CLEAR = `
    redis.call('zrem', KEYS[1], ARGV[1])
    redis.call('hdel', KEYS[2], ARGV[1])
    if redis.call('get', KEYS[3]) == ARGV[1] then redis.call('del', KEYS[3]) end
    return 1`;

  async function add<P>(entry: InboxEntry<P>): Promise<AddResult> {
    const jobId = toJobId(entry.id);
    try {
      const gate = String(
        await producer.eval(
          GATE,
          5,
          k('order', entry.thread),
          k('seq', entry.thread),
          k('done', jobId),
          k('seqs', entry.thread),
          k('arrived', entry.thread),
          jobId,
          o.maxPerThread,
          o.dedupTtlMs * 2,
          String(orderOf(entry)),
          o.orderSettleMs,
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
   * One round trip at the start of a run: an answered entry is skipped; while another entry of
   * the thread runs (or, none running, this one is not the head of its order) this one waits
   * (the blocker is named, so a dead one can be cleared); the head waits out the settle window
   * when another entry of the thread that is still waiting arrived within it; otherwise the thread is taken, the run
   * counted, and what earlier runs recorded returned. A replay of the running entry (its runner
   * died) runs whatever arrived meanwhile: a running entry is never pre-empted.
   */
  const BEGIN = `${HEAD}
    if redis.call('exists', KEYS[1]) == 1 then return {'done'} end
    local current = redis.call('get', KEYS[6])
    if current and current ~= ARGV[1] then
      return {'wait', current, redis.call('exists', ARGV[3] .. current)}
    end
    if not current then
      local h = head(KEYS[2], KEYS[5])
      if h and h ~= ARGV[1] then
        return {'wait', h, redis.call('exists', ARGV[3] .. h)}
      end
      local settle = tonumber(ARGV[4])
      if settle > 0 then
        local now = nowMs()
        local recent = redis.call('zrevrangebyscore', KEYS[7], '+inf', '(' .. (now - settle), 'WITHSCORES')
        for i = 1, #recent, 2 do
          if recent[i] ~= ARGV[1] and redis.call('zscore', KEYS[2], recent[i]) then
            local left = tonumber(recent[i + 1]) + settle - now
            if left > 0 then return {'settle', tostring(left)} end
          end
        end
      end
    end
    redis.call('set', KEYS[6], ARGV[1], 'PX', ARGV[2])
    local n = redis.call('incr', KEYS[3])
    redis.call('pexpire', KEYS[3], ARGV[2])
    local out = {'run', tostring(n)}
    for _, id in ipairs(redis.call('lrange', KEYS[4], 0, -1)) do out[#out + 1] = id end
    return out`;

  /** Whether the head of a thread's order can still run: waiting, delayed or running somewhere. */
  async function headAlive(head: string, headDone: boolean): Promise<boolean> {
    if (headDone) return false;
    return ALIVE_STATES.has(await queue.getJobState(head));
  }

  async function process(job: Job<InboxEntry>, token?: string): Promise<void> {
    const entry = job.data;
    const jobId = job.id ?? toJobId(entry.id);
    const orderKey = k('order', entry.thread);
    const seqsKey = k('seqs', entry.thread);
    const runningKey = k('running', entry.thread);
    let begun: string[] = [];
    for (let i = 0; ; i++) {
      begun = (await producer.eval(
        BEGIN,
        7,
        k('done', jobId),
        orderKey,
        k('runs', jobId),
        k('posted', jobId),
        seqsKey,
        runningKey,
        k('arrived', entry.thread),
        jobId,
        o.dedupTtlMs,
        k('done', ''),
        o.orderSettleMs,
      )) as string[];
      if (begun[0] === 'settle') {
        // Another message of the thread arrived just now: one sent earlier may still be on its way.
        await job.moveToDelayed(Date.now() + Math.max(1, Number(begun[1])), token);
        throw new DelayedError();
      }
      if (begun[0] !== 'wait') break;
      const head = begun[1] ?? '';
      if (i < 20 && !(await headAlive(head, Number(begun[2]) === 1))) {
        // Answered, failed or gone: it holds nobody up.
        await producer.eval(CLEAR, 3, orderKey, seqsKey, runningKey, head);
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
    const traceKey = k('trace', jobId);
    // Only a replay asks which trace the run before it was in (to link to it); nothing is stored without tracing.
    const previousTrace = attempt > 1 ? ((await producer.get(traceKey).catch(() => null)) ?? undefined) : undefined;
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
        previousTrace,
        recordTrace: async (traceparent) => {
          await producer.set(traceKey, traceparent, 'PX', o.dedupTtlMs);
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
    const [next] = (await producer.eval(
      FINISH,
      4,
      k('done', jobId),
      orderKey,
      seqsKey,
      runningKey,
      jobId,
      o.dedupTtlMs,
    )) as string[];
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
      const connection = createRedisConnection(url, 'blocking');
      watchRedisConnection(connection, log, { redis: where, uses: 'inbox runs' });
      worker = new Worker<InboxEntry>(o.queue, process, {
        connection,
        prefix: o.prefix,
        concurrency: o.concurrency,
        lockDuration: o.leaseMs,
        // Any live replica checks for dead workers' entries this often.
        stalledInterval: Math.max(500, Math.floor(o.leaseMs / 2)),
        maxStalledCount: 5,
        autorun: false,
        // Names this replica in Redis' client list (the operator console's per-replica "last seen").
        name: `${hostname()}-${pid}`,
      });
      worker.on('error', (err) => {
        if (connection.status === 'ready') log.warn({ err }, 'inbox worker error');
      });
      worker.on('stalled', (jobId) => log.warn({ entry: jobId }, 'inbox entry whose runner died is run again'));
      void worker.run();
      workerClients = [connection, await worker.waitUntilReady()];
    },
    async stop(drainMs = 10_000) {
      const w = worker;
      if (w) {
        const closing = w.close();
        if (!(await settledWithin(closing, drainMs))) {
          log.warn({ running: running.size }, 'turns still running at shutdown are handed back to the inbox');
          for (const abort of running.values()) abort.abort(new Error('shutting down'));
        }
        // BullMQ's close waits for its blocking client's 'end', which a client parked in
        // "reconnecting" (Redis away at this moment) never emits (bullmq#4656): a stop is bounded,
        // and past the bound both clients are cut. Unfinished entries are the next lease's.
        if (!(await settledWithin(closing, STOP_GRACE_MS))) {
          log.warn('the inbox could not close its Redis connections in time; they are cut');
          for (const client of workerClients) client.disconnect();
        } else {
          await settledWithin(
            w.client.then((c) => c.quit()),
            STOP_GRACE_MS,
          );
        }
      }
      const queueClosed = await settledWithin(queue.close(), STOP_GRACE_MS);
      // A shared connection is its owner's to close.
      if (!shared && !(queueClosed && (await settledWithin(producer.quit(), STOP_GRACE_MS)))) producer.disconnect();
    },
    async stats(opts) {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      const pending = (counts.waiting ?? 0) + (counts.active ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0);
      // The oldest of each list's first job (each list is kept in insertion order).
      const firsts = await Promise.all(
        (['active', 'waiting', 'delayed', 'prioritized'] as const).map((t) => queue.getJobs([t], 0, 0, true)),
      );
      const oldest = Math.min(
        ...firsts.flat().map((j) => (j?.data as InboxEntry | undefined)?.receivedAt ?? j?.timestamp ?? Infinity),
      );
      // CLIENT LIST may be refused by a managed Redis: then the replicas are simply not known.
      if (!opts?.replicas) return { pending, running: counts.active ?? 0, oldestAgeMs: age(oldest) };
      const workers = await queue.getWorkers().catch(() => []);
      return {
        pending,
        running: counts.active ?? 0,
        oldestAgeMs: age(oldest),
        // BullMQ puts the queue's name in `name`; the connection's own (`…:w:<host>-<pid>`) is `rawname`.
        replicas: workers.flatMap((w) => {
          const raw = String((w as { rawname?: unknown }).rawname ?? '');
          const at = raw.indexOf(':w:');
          return at < 0 ? [] : [{ name: raw.slice(at + 3), lastSeenMs: Number(w.idle ?? 0) * 1000 }];
        }),
      };
    },
  };
}

/** How long ago `oldest` (ms since the epoch) was; 0 when there is none. */
function age(oldest: number): number {
  return Number.isFinite(oldest) ? Math.max(0, Date.now() - oldest) : 0;
}

/** The job states of an entry that can still run: waiting, delayed or running somewhere. */
const ALIVE_STATES = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

/** BullMQ job ids may not contain ':'. */
function toJobId(id: string): string {
  return id.replaceAll('%', '%25').replaceAll(':', '%3A');
}

/** How long each step of a stop past the drain may take before its connections are cut. */
const STOP_GRACE_MS = 3_000;

/** Whether `work` settled (either way) within `ms`; never rejects, never holds the process open. */
async function settledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
