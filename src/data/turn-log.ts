import type { Logger } from '../telemetry/logger.js';
import type { AdminDataPort } from './rpc-port.js';
import { prunedRow } from './rows.js';

/** Rows one retention statement deletes at most; a longer backlog takes several (short) statements. */
const PRUNE_BATCH = 1_000;
/** At most this many batches a tick, so a first start on a huge backlog does not hog the database. */
const PRUNE_MAX_BATCHES = 50;

/**
 * Retention of the turn record (`turn_log`, read by the operator console): rows older than
 * TURN_LOG_DAYS are deleted in batches of 1,000 shortly after start and then every hour, on
 * each replica (the deletes are idempotent; two replicas at once just find less to delete).
 * Returns the stop function. A failed prune is logged and retried at the next tick.
 */
export function startTurnLogRetention(
  port: AdminDataPort,
  opts: { days: number; log: Logger; everyMs?: number; firstAfterMs?: number },
): () => void {
  let stopped = false;
  let running: Promise<void> | undefined;
  async function prune(): Promise<void> {
    let total = 0;
    try {
      for (let i = 0; i < PRUNE_MAX_BATCHES && !stopped; i++) {
        const [row] = await port.admin('prune_turn_log', { days: opts.days, limit: PRUNE_BATCH }, prunedRow);
        total += row?.deleted ?? 0;
        if ((row?.deleted ?? 0) < PRUNE_BATCH) break;
      }
      if (total > 0) opts.log.info({ deleted: total, days: opts.days }, 'turn record: old turns deleted');
    } catch (err) {
      opts.log.warn({ err }, 'turn record: could not delete old turns; retried at the next tick');
    }
  }
  const tick = () => void (running ??= prune().finally(() => (running = undefined)));
  const first = setTimeout(tick, opts.firstAfterMs ?? 30_000);
  const every = setInterval(tick, opts.everyMs ?? 3_600_000);
  first.unref();
  every.unref();
  return () => {
    stopped = true;
    clearTimeout(first);
    clearInterval(every);
  };
}
