import { DataError, type UsageRow } from '../contract/data.js';

/** Rows one statement carries at most; more wait for the next write. */
const BATCH_MAX = 500;

export interface LedgerWriter {
  /** Resolves once the row is committed (rejects if it could not be). */
  write(row: UsageRow): Promise<void>;
  /** Resolves when every row handed to `write` so far has been written or has failed. */
  idle(): Promise<void>;
}

export interface LedgerWrites {
  one(row: UsageRow): Promise<void>;
  many(rows: UsageRow[]): Promise<void>;
}

export interface LedgerWriterOptions {
  /**
   * Write at the end of this turn of the event loop rather than at once, so that the rows of
   * every turn ending in it share one statement. For an in-process database (PGlite): its
   * statements run on this thread, so no turn can end while one runs, rows never queue behind a
   * write in flight, and group commit alone wrote one row per statement (a thousand turns ending
   * within a second: a thousand INSERTs, the largest cost of a turn on the embedded database).
   * The wait is one `setImmediate`: the I/O that finished in the same poll is all it gathers.
   */
  gather?: boolean;
}

interface Pending {
  row: UsageRow;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for the token ledger. A turn's row is written at once when no ledger write is
 * in flight, so a lone turn waits for exactly one insert, as before. Rows that arrive while a
 * write is in flight queue and go together in the next one (one statement, one commit),
 * so a burst of a thousand turns ending together costs a few round trips instead of a thousand.
 * Nothing is acknowledged early: each `write` resolves only after the commit that holds its row.
 *
 * When a batch is refused for its input (a row naming a tenant deleted meanwhile), its rows are
 * retried one by one, so one bad row loses only itself. Any other failure (the database is
 * down) fails every row of the batch, as a single write would: each turn's rows then go to the
 * usage journal (src/agent/usage-journal.ts), which writes them later through this same writer;
 * the turn's id makes a row written twice count once.
 *
 * Hand-written rather than DataLoader: DataLoader batches what is asked in one tick, this batches
 * what queues behind a write in flight, which is what makes a lone turn pay no waiting. With
 * `gather` (the in-process database) it also waits for the end of the event loop's turn.
 */
export function createLedgerWriter(writes: LedgerWrites, opts: LedgerWriterOptions = {}): LedgerWriter {
  const queue: Pending[] = [];
  let draining: Promise<void> | undefined;

  async function flush(batch: Pending[]): Promise<void> {
    if (batch.length === 1) {
      const [only] = batch as [Pending];
      await writes.one(only.row).then(only.resolve, only.reject);
      return;
    }
    try {
      await writes.many(batch.map((p) => p.row));
      for (const p of batch) p.resolve();
    } catch (err) {
      if (!(err instanceof DataError && err.code === 'invalid_input')) {
        for (const p of batch) p.reject(err);
        return;
      }
      for (const p of batch) await writes.one(p.row).then(p.resolve, p.reject);
    }
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) await flush(queue.splice(0, BATCH_MAX));
    draining = undefined;
  }

  return {
    write(row) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ row, resolve, reject });
        draining ??= opts.gather ? new Promise<void>((next) => setImmediate(next)).then(drain) : drain();
      });
    },
    async idle() {
      while (draining) await draining;
    },
  };
}
