/**
 * The inbox between the platform adapters and the agent: an adapter verifies and normalizes an
 * event, adds it here under its dedup key and only then acks. A runner takes entries, one at a
 * time per thread in the platform's order (`order`: Slack `ts`, Discord snowflake; ties and
 * entries without one by arrival), and hands each to the adapter's delivery function.
 *
 * Two implementations share this interface: `memory-inbox.ts` (the embedded default: one
 * process, lost on restart) and `redis-inbox.ts` (BullMQ on Redis: survives crashes and
 * deploys, shared by every replica).
 */

/** One event waiting for (or getting) its answer. JSON-serialisable. */
export interface InboxEntry<P = unknown> {
  /** The dedup key: a retry or a twin of the same event carries the same id. */
  id: string;
  /** Which delivery function answers it. */
  platform: string;
  /** Entries with the same thread run one at a time, by `order` (ties by arrival). */
  thread: string;
  /** The adapter's own description of the work (normalized message, where to answer). */
  payload: P;
  receivedAt: number;
  /**
   * Where the entry goes in its thread: the platform's own timestamp of the message in ms since
   * the epoch, fractions allowed (Slack `ts`, a Discord snowflake's time). Waiting entries run
   * lowest first, so a message sent first but delivered later goes before those still waiting;
   * a running one is never stopped. Absent: `receivedAt` (arrival order, e.g. HTTP).
   */
  order?: number;
  /**
   * The W3C trace context of the span that recorded the entry (tracing on only), so the run on
   * any replica continues the same trace.
   */
  trace?: { traceparent?: string; tracestate?: string };
}

/** The key an entry is ordered by in its thread. */
export const orderOf = (entry: Pick<InboxEntry, 'order' | 'receivedAt'>): number =>
  typeof entry.order === 'number' && Number.isFinite(entry.order) ? entry.order : entry.receivedAt;

/** A Slack `ts` ("1700000000.000100": seconds and a per-channel sequence) as ms with a fraction. */
export function slackTsOrder(ts: string | undefined): number | undefined {
  const m = ts ? /^(\d+)\.(\d{1,6})$/.exec(ts) : null;
  if (!m) return undefined;
  return Number(m[1]) * 1000 + Number(m[2]!.padEnd(6, '0')) / 1000;
}

/**
 * A Discord snowflake's time in ms, its 12-bit per-process increment as the fraction (two ids of
 * one millisecond keep their order when one process made both).
 */
export function snowflakeOrder(id: string | undefined): number | undefined {
  if (!id || !/^\d{1,20}$/.test(id)) return undefined;
  const n = BigInt(id);
  return Number((n >> 22n) + 1_420_070_400_000n) + Number(n & 0xfffn) / 4096;
}

/**
 * `added`: recorded, it will be answered. `duplicate`: this id is already waiting or was
 * answered. `full`: the thread already has the most entries allowed waiting; not recorded.
 */
export type AddResult = 'added' | 'duplicate' | 'full';

/** What a delivery function gets for one run of one entry. */
export interface Delivery<P = unknown> {
  entry: InboxEntry<P>;
  /** 1 on the first run; higher when an earlier run died (crash, deploy) or could not reach its storage. */
  attempt: number;
  /**
   * What earlier runs recorded (posted message ids and markers), in order. Non-empty means the
   * user may already see part of this answer: edit those messages, never post them again.
   */
  recorded: string[];
  /** Records a platform id as soon as it exists, so a replay finds it. */
  record(id: string): Promise<void>;
  /**
   * What every run of this entry has recorded by now. `recorded` is read when this run began; a run
   * that began while an earlier one was still alive (its lease lapsed while its process stalled,
   * so the inbox ran the entry again) sees here what that one did once it ended. Absent: `recorded`.
   */
  current?(): Promise<string[]>;
  /** Aborts when this replica stops before the run finished: the entry is handed back. */
  signal: AbortSignal;
  /** A replay: the W3C traceparent an earlier run of this entry recorded (its turn span), if any. */
  previousTrace?: string;
  /** Records this run's traceparent so a replay can link to it (inboxes that replay: Redis). */
  recordTrace?(traceparent: string): Promise<void>;
  /**
   * The inbox runs this entry again, after a backoff and still in its thread's order, if the
   * delivery throws `RetryLaterError` (tries are left); false on the last try: then the delivery
   * tells the user itself. Absent: false.
   */
  canRetry?: boolean;
}

/**
 * What a delivery records once the whole answer is on the platform: a later run of the entry
 * (a replay, or a run begun while this one was alive) has nothing left to do.
 */
export const DELIVERED_MARK = 'delivered';

export type DeliveryFn<P = unknown> = (delivery: Delivery<P>) => Promise<void>;

export interface InboxStats {
  /** Entries added and not yet finished (running included). */
  pending: number;
  running: number;
  /** How long the oldest unanswered entry has waited; 0 when there is none. */
  oldestAgeMs: number;
  /**
   * The replicas running entries (Redis: each worker's connection, named host-pid, and how long
   * since it last spoke to Redis); absent for the in-process inbox (this process only).
   */
  replicas?: { name: string; lastSeenMs: number }[];
}

export interface Inbox {
  readonly kind: 'memory' | 'redis';
  /** Records the entry. Throws when it cannot be recorded (the caller must then not ack). */
  add<P>(entry: InboxEntry<P>): Promise<AddResult>;
  /** The delivery function for one platform's entries; set before `start()`. */
  deliver<P>(platform: string, fn: DeliveryFn<P>): void;
  /** Starts taking entries. */
  start(): Promise<void>;
  /**
   * Stops taking entries, lets running ones finish for up to `drainMs`, then aborts the rest
   * and hands them back (Redis: to another replica; memory: they are lost, see README).
   */
  stop(drainMs?: number): Promise<void>;
  /** `replicas`: also list the replicas (one more Redis round trip; the console asks, probes do not). */
  stats(opts?: { replicas?: boolean }): Promise<InboxStats>;
}

export interface InboxOptions {
  /** Entries run at once in this process (different threads). */
  concurrency: number;
  /** Entries one thread may have waiting or running; more are refused with `full`. */
  maxPerThread: number;
  /** How long an id is remembered as answered (Slack retries for about 5 minutes). */
  dedupTtlMs: number;
  /**
   * Before a thread's next entry starts: if another entry of the thread waiting behind it arrived
   * less than this long ago, wait until that one is this old, so a late arrival sent earlier
   * takes its place; a lone entry starts at once. 0 = off.
   */
  orderSettleMs: number;
  /** Runs of an entry after its first, when a delivery throws `RetryLaterError`; 0 = none. */
  retryAttempts: number;
  /** The longest wait between two runs (the waits double from `RETRY_FIRST_DELAY_MS` up to it). */
  retryMaxMs: number;
}

export const DEFAULT_INBOX_OPTIONS: InboxOptions = {
  concurrency: 16,
  maxPerThread: 10,
  dedupTtlMs: 24 * 3_600_000,
  orderSettleMs: 150,
  retryAttempts: 10,
  retryMaxMs: 15_000,
};

/** Thrown by `add` when the inbox cannot record an entry; the adapter answers so the platform retries. */
export class InboxUnavailableError extends Error {
  constructor(cause: unknown) {
    super('the inbox could not record the event', { cause });
    this.name = 'InboxUnavailableError';
  }
}

/** What a user is told when their message could not be recorded (the inbox is unavailable). */
export const INBOX_UNAVAILABLE_TEXT = 'I could not take that request right now. Please try again in a minute.';

/** The user-facing words for a thread whose queue is full. */
export const THREAD_QUEUE_FULL_TEXT = (max: number) =>
  `I already have ${max} messages waiting in this conversation. Please wait for my answers, then ask again.`;

/** Ends the event stream quietly when `signal` aborts (a hand-back, not a failure to show). */
export async function* untilAborted<T>(events: AsyncIterable<T>, signal: AbortSignal): AsyncIterable<T> {
  for await (const event of events) {
    if (signal.aborted) return;
    yield event;
  }
}

/**
 * Thrown by a delivery whose turn could not reach Redis or Postgres before anything was shown
 * (`Delivery.canRetry` true): the inbox runs the entry again after a backoff, in its thread's
 * order (the thread's later entries wait behind it), and says nothing to the user.
 */
export class RetryLaterError extends Error {
  constructor(readonly code: string) {
    super(`the turn could not reach its storage (${code}); it runs again later`);
    this.name = 'RetryLaterError';
  }
}
