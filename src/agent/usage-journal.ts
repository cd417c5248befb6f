import { randomUUID } from 'node:crypto';
import { DataError, type DataPort, type UsageRow } from '../contract/data.js';
import type { RedisClient } from '../state/kv.js';
import type { Logger } from '../telemetry/logger.js';
import { metrics } from '../telemetry/metrics.js';

/**
 * Where journaled usage rows wait, one entry per turn id: a Redis hash when the inbox is on Redis
 * (shared by every replica and as durable as the inbox: a row kept by a replica that then died or
 * restarted is written by the next one to look), else this process's memory (as the inbox and the
 * thread state are without Redis: a restart loses them).
 */
export interface JournalStore {
  readonly kind: 'redis' | 'memory';
  put(id: string, row: string): Promise<void>;
  /** Up to `max` entries. */
  list(max: number): Promise<[string, string][]>;
  remove(ids: string[]): Promise<void>;
  size(): Promise<number>;
}

export function memoryJournalStore(): JournalStore {
  const rows = new Map<string, string>();
  return {
    kind: 'memory',
    put: async (id, row) => void rows.set(id, row),
    list: async (max) => [...rows.entries()].slice(0, max),
    remove: async (ids) => ids.forEach((id) => rows.delete(id)),
    size: async () => rows.size,
  };
}

/** One hash (`key`): HSET to keep, HSCAN to read, HDEL once written, HLEN for the depth. */
export function redisJournalStore(redis: RedisClient, key: string): JournalStore {
  return {
    kind: 'redis',
    put: async (id, row) => void (await redis.hset(key, id, row)),
    async list(max) {
      const out: [string, string][] = [];
      let cursor = '0';
      do {
        const [next, flat] = await redis.hscan(key, cursor, 'COUNT', Math.min(max, 500));
        for (let i = 0; i + 1 < flat.length && out.length < max; i += 2) out.push([flat[i]!, flat[i + 1]!]);
        cursor = next;
      } while (cursor !== '0' && out.length < max);
      return out;
    },
    remove: async (ids) => void (ids.length ? await redis.hdel(key, ...ids) : 0),
    size: () => redis.hlen(key),
  };
}

/** What the budgets add to the ledger's totals: spend kept here, not yet in the database. */
export interface HeldQuery {
  tenantId: string;
  userId?: string;
  from: Date;
  to: Date;
}

export interface UsageJournal {
  readonly store: JournalStore['kind'];
  /** Keeps a turn's rows that the database could not take; never rejects (a row it cannot keep is one error line). */
  keep(row: UsageRow, err: unknown): Promise<void>;
  /** The database took a turn's rows: if rows wait, flush them now. Cheap when none do. */
  written(): void;
  /** Writes what the journal holds, oldest pass first; resolves with the rows written (0 when the database is still away). */
  flush(): Promise<number>;
  /** Tokens and cost held by rows this process knows of and has not written yet. */
  held(q: HeldQuery): { tokens: number; costUsd: number };
  depth(): Promise<number>;
  /** Checks for rows (a previous run's, another replica's) now and then every `everyMs`. */
  start(): void;
  /** Stops the ticks after one last flush (bounded); rows only in memory are counted as lost. */
  stop(): Promise<void>;
}

export interface UsageJournalOptions {
  data: Pick<DataPort, 'recordUsage'>;
  store: JournalStore;
  log: Logger;
  /** USAGE_JOURNAL_MAX: rows kept at most (the store's, and as many in memory while the store fails). */
  max: number;
  /** How often an idle replica looks for rows (default 5 s). */
  everyMs?: number;
  /** The first retry after a failed flush (doubles to 10 s; default 1 s). */
  retryMs?: number;
}

/** Rows one pass of a flush reads; the data port's group commit writes them in a statement or two. */
const FLUSH_BATCH = 200;
const RETRY_MAX_MS = 10_000;
/** The last flush at shutdown waits this long at most (the database may still be away). */
const STOP_FLUSH_MS = 2_000;

interface Held {
  tenantId: string;
  userId: string;
  tokens: number;
  costUsd: number;
  at: number;
}

/**
 * The usage journal (issue 41, item 3): a turn's ledger and turn-record rows that could not be
 * written are kept here and written exactly once later. Each row carries its turn's id, and the
 * SQL functions skip an id already written, so a retried flush, two replicas flushing one Redis
 * hash, or a write that committed but whose answer was lost never doubles a row. Rows are read
 * back through the data port's ordinary `recordUsage` (the same group commit as live turns).
 *
 * Bounded: at most `max` rows in the store; past it a row is dropped with one error line per
 * episode and `switchboard_usage_journal_dropped_total`. If the store itself fails (Redis away
 * too), rows wait in memory (as many again) and are written or moved to the store by the next flush.
 */
export function createUsageJournal(opts: UsageJournalOptions): UsageJournal {
  const { data, store, log, max } = opts;
  const everyMs = opts.everyMs ?? 5_000;
  const retryMs = opts.retryMs ?? 1_000;
  /** Rows the store could not take: written or moved there by the next flush. */
  const overflow = new Map<string, UsageRow>();
  /** The spend of rows this process kept or read back, until written (budgets). */
  const held = new Map<string, Held>();
  let waiting = false;
  let outage = false;
  let fullLogged = false;
  let storeDownLogged = false;
  let flushing: Promise<number> | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** When the pending tick fires (a new row never pushes it later). */
  let due = Infinity;
  let running = false;
  let delay = retryMs;

  const hold = (id: string, row: UsageRow) =>
    held.set(id, {
      tenantId: row.tenantId,
      userId: row.userId,
      tokens: row.promptTokens + row.completionTokens,
      costUsd: row.costUsd ?? 0,
      at: Date.parse(row.turn?.at ?? '') || Date.now(),
    });

  function drop(reason: string): void {
    metrics.usageJournalDropped.inc();
    if (fullLogged) return;
    fullLogged = true;
    log.error({ event: 'usage_journal_dropped', max, store: store.kind, reason }, `usage journal: ${reason}`);
  }

  async function depth(): Promise<number> {
    const stored = await store.size().catch(() => 0);
    const n = stored + overflow.size;
    metrics.usageJournalDepth.set(n);
    return n;
  }

  function schedule(ms: number): void {
    if (!running || (timer && Date.now() + ms >= due)) return;
    clearTimeout(timer);
    due = Date.now() + ms;
    timer = setTimeout(() => {
      timer = undefined;
      due = Infinity;
      void tick();
    }, ms);
    timer.unref();
  }

  async function tick(): Promise<void> {
    try {
      if (!waiting && (await depth()) > 0) waiting = true;
      if (waiting) await flush();
    } finally {
      schedule(waiting ? delay : everyMs);
    }
  }

  /** Writes a batch; resolves with the ids done (written, or refused for good) and whether all went. */
  async function write(entries: [string, UsageRow][]): Promise<{ done: string[]; ok: boolean }> {
    const results = await Promise.allSettled(entries.map(([, row]) => data.recordUsage(row)));
    const done: string[] = [];
    let ok = true;
    results.forEach((r, i) => {
      const id = entries[i]![0];
      if (r.status === 'fulfilled') done.push(id);
      else if (r.reason instanceof DataError && r.reason.code === 'invalid_input') {
        // A tenant deleted meanwhile: this row can never be written.
        log.warn(
          { err: r.reason, tenant: entries[i]![1].tenantId },
          'usage journal: a row the database refuses for good was dropped',
        );
        done.push(id);
      } else ok = false;
    });
    for (const id of done) held.delete(id);
    return { done, ok };
  }

  async function flushOnce(): Promise<number> {
    let written = 0;
    while (overflow.size > 0) {
      const { done, ok } = await write([...overflow.entries()].slice(0, FLUSH_BATCH));
      for (const id of done) overflow.delete(id);
      written += done.length;
      if (!ok) {
        // The database is still away: move what waits in memory to the store, if it is back.
        for (const [id, row] of [...overflow]) {
          if (
            !(await store.put(id, JSON.stringify(row)).then(
              () => true,
              () => false,
            ))
          )
            break;
          overflow.delete(id);
        }
        return written;
      }
    }
    for (;;) {
      const batch: [string, UsageRow][] = [];
      const unreadable: string[] = [];
      for (const [id, raw] of await store.list(FLUSH_BATCH)) {
        const row = readRow(raw);
        if (!row) unreadable.push(id);
        else {
          if (!held.has(id)) hold(id, row);
          batch.push([id, row]);
        }
      }
      if (unreadable.length) {
        log.error(
          { event: 'usage_journal_unreadable', rows: unreadable.length },
          'usage journal: unreadable rows dropped',
        );
        metrics.usageJournalDropped.inc(unreadable.length);
        await store.remove(unreadable);
      }
      if (batch.length === 0 && unreadable.length === 0) break;
      const { done, ok } = await write(batch);
      await store.remove(done);
      written += done.length;
      if (!ok) return written;
    }
    // The store was found empty: what this process still holds for the budgets was written (by
    // this replica or another one).
    for (const id of held.keys()) if (!overflow.has(id)) held.delete(id);
    waiting = overflow.size > 0;
    delay = retryMs;
    if (outage || written > 0)
      log.info(
        { event: 'usage_journal_flushed', written, store: store.kind },
        'usage journal: rows kept while the database was away are written',
      );
    outage = false;
    fullLogged = false;
    storeDownLogged = false;
    return written;
  }

  function flush(): Promise<number> {
    flushing ??= flushOnce()
      .catch((err: unknown) => {
        log.debug({ err }, 'usage journal: flush failed; retried');
        return 0;
      })
      .then(async (n) => {
        if (waiting) delay = Math.min(delay * 2, RETRY_MAX_MS);
        await depth();
        return n;
      })
      .finally(() => (flushing = undefined));
    return flushing;
  }

  return {
    store: store.kind,
    async keep(row, err) {
      const id = row.turn?.id ?? randomUUID();
      const kept: UsageRow = row.turn
        ? { ...row, turn: { ...row.turn, id, at: row.turn.at ?? new Date().toISOString() } }
        : row;
      waiting = true;
      if (!outage) {
        outage = true;
        log.warn(
          { event: 'usage_journal_keeping', err, store: store.kind, tenant: row.tenantId },
          'usage rows could not be written: kept in the usage journal until the database is back',
        );
      }
      try {
        if ((await store.size()) + overflow.size >= max)
          return drop(`full (USAGE_JOURNAL_MAX=${max}): usage rows are dropped until the database is back`);
        await store.put(id, JSON.stringify(kept));
      } catch (storeErr) {
        if (overflow.size >= max) return drop('its store is away and memory is full: usage rows are dropped');
        overflow.set(id, kept);
        if (!storeDownLogged) {
          storeDownLogged = true;
          log.error(
            { err: storeErr, event: 'usage_journal_store_failed', store: store.kind },
            'usage journal: its store failed; rows wait in memory until it is back',
          );
        }
      }
      hold(id, kept);
      metrics.usageJournalDepth.inc();
      schedule(delay);
    },
    written() {
      if (waiting && !flushing) void flush();
    },
    flush,
    held(q) {
      let tokens = 0;
      let costUsd = 0;
      const from = q.from.getTime();
      const to = q.to.getTime();
      for (const h of held.values()) {
        if (h.tenantId !== q.tenantId || (q.userId !== undefined && h.userId !== q.userId)) continue;
        if (h.at < from || h.at >= to) continue;
        tokens += h.tokens;
        costUsd += h.costUsd;
      }
      return { tokens, costUsd };
    },
    depth,
    start() {
      running = true;
      schedule(0);
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      timer = undefined;
      if (waiting) {
        let timeout: NodeJS.Timeout | undefined;
        await Promise.race([flush(), new Promise((resolve) => (timeout = setTimeout(resolve, STOP_FLUSH_MS)))]);
        clearTimeout(timeout);
      }
      const lost = overflow.size + (store.kind === 'memory' ? await store.size() : 0);
      if (lost > 0) {
        metrics.usageJournalDropped.inc(lost);
        log.error(
          { event: 'usage_journal_lost', rows: lost, store: store.kind },
          'usage journal: rows not yet written are lost with this process',
        );
      }
    },
  };
}

/** A stored row, or undefined when it is not one (a foreign or damaged entry). */
function readRow(raw: string): UsageRow | undefined {
  try {
    const row = JSON.parse(raw) as Partial<UsageRow> | null;
    return row && typeof row.tenantId === 'string' && typeof row.promptTokens === 'number'
      ? (row as UsageRow)
      : undefined;
  } catch {
    return undefined;
  }
}
