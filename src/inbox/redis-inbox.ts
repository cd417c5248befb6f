import { hostname } from 'node:os';
import { pid } from 'node:process';
import { DelayedError, Queue, UnrecoverableError, WaitingError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { ConfigError } from '../config/index.js';
import { createRedisConnection, watchRedisConnection, watchRedisPersistence } from '../net/redis-connection.js';
import { describeRedisUrl } from '../net/redis-url.js';
import { settledWithin } from '../net/settled-within.js';
import type { Logger } from '../telemetry/logger.js';
import { createOutageNotice } from '../telemetry/outage-notice.js';
import { watchRedisEpoch } from './redis-epoch.js';
import { createOutageLog, onceRedisAnswers, retryDelayMs, shouldRetry } from './retry.js';
import { BEGIN, CLEAR, FINISH, GATE } from './redis-scripts.js';
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
      // A run that could not reach Redis or Postgres (or threw before its turn) runs again with
      // backoff (`retryDelayMs`, the worker's strategy); the thread's `running` key stays its own meanwhile.
      attempts: o.retryAttempts + 1,
      backoff: { type: 'switchboard' },
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
  let workerClients: { disconnect(): void }[] = [];
  const running = new Map<string, AbortController>();
  const outage = createOutageLog(log, o);

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
   * Whether the entry holding a thread up can still run (waiting, delayed or running somewhere),
   * and whether it waits to run again after a failed run (then those behind it look less often).
   */
  async function blocker(head: string, headDone: boolean): Promise<{ alive: boolean; retrying: boolean }> {
    if (headDone) return { alive: false, retrying: false };
    const state = await queue.getJobState(head);
    if (state !== 'delayed') return { alive: ALIVE_STATES.has(state), retrying: false };
    return { alive: true, retrying: ((await queue.getJob(head))?.attemptsMade ?? 0) > 0 };
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
      const ahead = await blocker(head, Number(begun[2]) === 1);
      if (i < 20 && !ahead.alive) {
        // Answered, failed or gone: it holds nobody up.
        await producer.eval(CLEAR, 3, orderKey, seqsKey, runningKey, head);
        continue;
      }
      // An earlier message of this thread is still waiting or running (or waits out an outage): try again shortly.
      const pause = ahead.retrying ? 1_000 + Math.floor(Math.random() * 500) : 100 + Math.floor(Math.random() * 150);
      await job.moveToDelayed(Date.now() + pause, token);
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
    // Tries left after this one (BullMQ counts failed runs; a wait in the thread's order is none).
    const canRetry = job.attemptsMade + 1 < (job.opts.attempts ?? 1);
    let retry: unknown;
    try {
      await handler({
        entry,
        attempt,
        recorded,
        signal: abort.signal,
        canRetry,
        record: async (id) => {
          await producer.multi().rpush(recordedKey, id).pexpire(recordedKey, o.dedupTtlMs).exec();
        },
        current: () => producer.lrange(recordedKey, 0, -1),
        previousTrace,
        recordTrace: async (traceparent) => {
          await producer.set(traceKey, traceparent, 'PX', o.dedupTtlMs);
        },
      });
      outage.ended(entry.id, canRetry);
    } catch (err) {
      if (canRetry && !abort.signal.aborted && shouldRetry(err)) retry = err;
      else if (!abort.signal.aborted) {
        outage.ended(entry.id, false);
        log.error({ err, entry: entry.id }, 'inbox entry failed; it is not retried');
      }
    } finally {
      running.delete(jobId);
    }
    if (abort.signal.aborted) {
      // Shutting down mid-turn: hand the entry back at once instead of waiting for its lease.
      await job.moveToWait(token);
      throw new WaitingError();
    }
    if (retry) {
      // BullMQ moves it to delayed with the backoff; the thread stays taken, its later entries wait.
      outage.waiting(entry.id, job.attemptsMade + 1);
      throw retry;
    }
    // Answered: marked done even across a blip (else a replay would ask the model again).
    const [next] = (await onceRedisAnswers(
      producer,
      () => producer.eval(FINISH, 4, k('done', jobId), orderKey, seqsKey, runningKey, jobId, o.dedupTtlMs),
      FINISH_WAIT_MS,
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
      // Only an outage is worth another run (BullMQ's attempts); a bug fails the entry at once.
      const run = (job: Job<InboxEntry>, token?: string) =>
        process(job, token).catch((err: unknown) => {
          if (err instanceof DelayedError || err instanceof WaitingError || shouldRetry(err)) throw err;
          throw new UnrecoverableError(err instanceof Error ? err.message : String(err));
        });
      worker = new Worker<InboxEntry>(o.queue, run, {
        connection,
        prefix: o.prefix,
        concurrency: o.concurrency,
        lockDuration: o.leaseMs,
        // Any live replica checks for dead workers' entries this often.
        stalledInterval: Math.max(500, Math.floor(o.leaseMs / 2)),
        maxStalledCount: 5,
        settings: { backoffStrategy: (attemptsMade: number) => retryDelayMs(attemptsMade, o.retryMaxMs) },
        autorun: false,
        // Names this replica in Redis' client list (the operator console's per-replica "last seen").
        name: `${hostname()}-${pid}`,
      });
      // After an outage one entry can report several lock errors (renew, finish, delay): told once,
      // the rest at debug, until an entry completes again.
      const workerErrors = createOutageNotice(log, 'the inbox worker completes entries again');
      worker.on('error', (err) => {
        if (connection.status === 'ready') workerErrors.failed({ err }, 'inbox worker error');
      });
      worker.on('completed', () => workerErrors.ok());
      worker.on('stalled', (jobId) => log.warn({ entry: jobId }, 'inbox entry whose runner died is run again'));
      worker.on('failed', (job, err) => {
        // A run that threw outside its delivery (a bug, or Redis away mid-step with no tries left).
        if (job && (err.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1)))
          log.error(
            { err, entry: job.id, runs: job.attemptsMade },
            'inbox entry failed on its last try; it is not answered',
          );
      });
      void worker.run();
      await worker.waitUntilReady();
      const blocking = await worker.getBackend().blockingClient;
      workerClients = [connection, ...(blocking ? [blocking] : [])];
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
            w.getBackend().client.then((c) => c.quit()),
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

/** How long an answered entry waits for Redis to come back to be marked done (then its lease decides). */
const FINISH_WAIT_MS = 30_000;

/** BullMQ job ids may not contain ':'. */
function toJobId(id: string): string {
  return id.replaceAll('%', '%25').replaceAll(':', '%3A');
}

/** How long each step of a stop past the drain may take before its connections are cut. */
const STOP_GRACE_MS = 3_000;
