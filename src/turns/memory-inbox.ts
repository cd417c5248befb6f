import type { Logger } from '../logger.js';
import {
  DEFAULT_INBOX_OPTIONS,
  type AddResult,
  type DeliveryFn,
  type Inbox,
  type InboxEntry,
  type InboxOptions,
} from './inbox.js';

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
  /** Waiting entries per thread, in arrival order; the head of a running thread is in `running`. */
  const queues = new Map<string, InboxEntry[]>();
  const running = new Map<string, Running>();
  const recorded = new Map<string, string[]>();
  let started = false;
  let accepting = true;

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
      if (running.has(thread)) continue;
      const entry = queue.shift();
      if (!entry) {
        queues.delete(thread);
        continue;
      }
      run(thread, entry);
    }
  }

  function run(thread: string, entry: InboxEntry): void {
    const abort = new AbortController();
    const handler = handlers.get(entry.platform);
    const ids = recorded.get(entry.id) ?? [];
    recorded.set(entry.id, ids);
    const work = handler
      ? handler({
          entry,
          attempt: 1,
          recorded: [...ids],
          record: async (id) => void ids.push(id),
          signal: abort.signal,
        })
      : Promise.reject(new Error(`no delivery function for ${entry.platform}`));
    const done = work
      .catch((err: unknown) => log.error({ err, entry: entry.id }, 'inbox entry failed'))
      .finally(() => {
        running.delete(thread);
        recorded.delete(entry.id);
        if (!queues.get(thread)?.length) queues.delete(thread);
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
      queue.push(entry);
      queues.set(entry.thread, queue);
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
        ...[...queues.values()].map((q) => q[0]?.receivedAt ?? Infinity),
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
