import type { Logger } from '../telemetry/logger.js';
import {
  DEFAULT_INBOX_OPTIONS,
  type AddResult,
  type DeliveryFn,
  type Inbox,
  type InboxEntry,
  type InboxOptions,
  orderOf,
} from './inbox.js';
import { createOutageLog, runWithRetries } from './retry.js';

/** Answered ids remembered at most, whatever their TTL: the dedup memory stays bounded. */
const MAX_SEEN = 50_000;

interface Running {
  entry: InboxEntry;
  abort: AbortController;
  done: Promise<void>;
}

/**
 * The embedded inbox: one process, no Redis. Same contract as the Redis inbox while the
 * process lives; entries waiting or running when it exits are lost (README says so).
 */
export function createMemoryInbox(log: Logger, options: Partial<InboxOptions> = {}): Inbox {
  const o = { ...DEFAULT_INBOX_OPTIONS, ...options };
  const handlers = new Map<string, DeliveryFn>();
  /** id → when it may be forgotten; insertion order is age order (ids are never re-added). */
  const seen = new Map<string, number>();
  /** Waiting entries per thread, by order then arrival; the entry a thread is running is in `running`. */
  const queues = new Map<string, InboxEntry[]>();
  const running = new Map<string, Running>();
  const recorded = new Map<string, string[]>();
  /** Per thread, when its entries of the last `orderSettleMs` arrived (oldest first). */
  const arrivals = new Map<string, { id: string; at: number }[]>();
  /** Per thread, the timer that starts its head once the settle window has passed. */
  const settling = new Map<string, NodeJS.Timeout>();
  let started = false;
  let accepting = true;
  const outage = createOutageLog(log, o);

  /** How long `head` must still wait for its thread to settle: 0 unless another waiting entry arrived within the window. */
  function settleLeft(thread: string, head: InboxEntry): number {
    if (o.orderSettleMs <= 0) return 0;
    const now = Date.now();
    const recent = (arrivals.get(thread) ?? []).filter((a) => now - a.at < o.orderSettleMs);
    if (recent.length) arrivals.set(thread, recent);
    else arrivals.delete(thread);
    const waiting = new Set((queues.get(thread) ?? []).map((e) => e.id));
    const latest = Math.max(...recent.filter((a) => a.id !== head.id && waiting.has(a.id)).map((a) => a.at));
    return Number.isFinite(latest) ? latest + o.orderSettleMs - now : 0;
  }

  function remember(id: string): void {
    const now = Date.now();
    for (const [old, until] of seen) {
      if (until > now && seen.size < MAX_SEEN) break;
      seen.delete(old);
    }
    seen.set(id, now + o.dedupTtlMs);
  }

  function pump(): void {
    if (!started || !accepting) return;
    for (const [thread, queue] of queues) {
      if (running.size >= o.concurrency) return;
      if (running.has(thread) || settling.has(thread)) continue;
      const head = queue[0];
      if (!head) {
        queues.delete(thread);
        continue;
      }
      const wait = settleLeft(thread, head);
      if (wait > 0) {
        // Another message of the thread arrived just now: one sent earlier may still be on its way.
        settling.set(
          thread,
          setTimeout(() => {
            settling.delete(thread);
            pump();
          }, wait),
        );
        continue;
      }
      queue.shift();
      run(thread, head);
    }
  }

  function run(thread: string, entry: InboxEntry): void {
    const abort = new AbortController();
    const handler = handlers.get(entry.platform);
    const ids = recorded.get(entry.id) ?? [];
    recorded.set(entry.id, ids);
    // A run that could not reach Redis or Postgres runs again after a backoff; the thread stays
    // taken meanwhile, so its later entries wait behind it.
    const work = handler
      ? runWithRetries(
          (attempt, canRetry) =>
            handler({
              entry,
              attempt,
              recorded: [...ids],
              record: async (id) => void ids.push(id),
              current: async () => [...ids],
              signal: abort.signal,
              canRetry,
            }),
          entry.id,
          o,
          outage,
          abort.signal,
        )
      : Promise.reject(new Error(`no delivery function for ${entry.platform}`));
    const done = work
      .catch((err: unknown) => log.error({ err, entry: entry.id }, 'inbox entry failed'))
      .finally(() => {
        running.delete(thread);
        recorded.delete(entry.id);
        if (!queues.get(thread)?.length) {
          queues.delete(thread);
          arrivals.delete(thread);
        }
        pump();
      });
    running.set(thread, { entry, abort, done });
  }

  return {
    kind: 'memory',
    async add<P>(entry: InboxEntry<P>): Promise<AddResult> {
      const until = seen.get(entry.id);
      if (until !== undefined && until > Date.now()) return 'duplicate';
      const queue = queues.get(entry.thread) ?? [];
      if (queue.length + (running.has(entry.thread) ? 1 : 0) >= o.maxPerThread) return 'full';
      remember(entry.id);
      const key = orderOf(entry);
      // Sorted by order, then arrival: a late entry sent earlier goes before those waiting (never before the running one).
      const at = queue.findIndex((w) => orderOf(w) > key);
      queue.splice(at < 0 ? queue.length : at, 0, entry);
      queues.set(entry.thread, queue);
      if (o.orderSettleMs > 0) {
        const now = Date.now();
        const recent = (arrivals.get(entry.thread) ?? []).filter((a) => now - a.at < o.orderSettleMs);
        arrivals.set(entry.thread, [...recent, { id: entry.id, at: now }]);
      }
      pump();
      return 'added';
    },
    deliver(platform, fn) {
      handlers.set(platform, fn as DeliveryFn);
    },
    async start() {
      started = true;
      pump();
    },
    async stop(drainMs = 10_000) {
      accepting = false;
      for (const timer of settling.values()) clearTimeout(timer);
      settling.clear();
      const all = () => Promise.allSettled([...running.values()].map((r) => r.done));
      const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), drainMs).unref());
      if ((await Promise.race([all(), timer])) === 'timeout') {
        const left = [...running.values()];
        log.warn(
          { running: left.length, waiting: [...queues.values()].reduce((n, q) => n + q.length, 0) },
          'turns still running at shutdown are stopped; without Redis they are not replayed',
        );
        for (const r of left) r.abort.abort(new Error('shutting down'));
        await all();
      }
    },
    async stats() {
      const waiting = [...queues.values()].reduce((n, q) => n + q.length, 0);
      const oldest = Math.min(
        ...[...queues.values()].flatMap((q) => q.map((w) => w.receivedAt)),
        ...[...running.values()].map((r) => r.entry.receivedAt),
      );
      return {
        pending: waiting + running.size,
        running: running.size,
        oldestAgeMs: Number.isFinite(oldest) ? Math.max(0, Date.now() - oldest) : 0,
      };
    },
  };
}
