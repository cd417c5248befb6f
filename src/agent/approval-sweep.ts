import type { ApprovalStore, DueApproval } from '../data/approvals.js';
import type { Logger } from '../telemetry/logger.js';
import { APPROVAL_ACTION, EXPIRE_VERB } from './approval-turn.js';

/** The action of the sweep's entry: the turn expires the step of `value` (an approval id) and resumes like a deny. */
export function expiryAction(due: Pick<DueApproval, 'id'>): { id: string; value: string } {
  return { id: `${APPROVAL_ACTION}.${EXPIRE_VERB}`, value: due.id };
}

/** Whether an action is the sweep's (no button has it: the adapter updates the approval message itself). */
export function isExpiryAction(action: { id: string } | undefined): boolean {
  return action?.id === `${APPROVAL_ACTION}.${EXPIRE_VERB}`;
}

export interface ApprovalSweepOptions {
  store: Pick<ApprovalStore, 'due'>;
  /** The platforms whose adapter can answer an expiry entry (their rows only are swept). */
  platforms: string[];
  /** APPROVAL_SWEEP_MS: how often (every replica; 30 s by default). */
  intervalMs: number;
  log: Logger;
  /**
   * Records the step's expiry entry in the inbox, deduplicated by its step id (two replicas
   * sweeping the same step record one entry); the entry's turn decides it (the conditional UPDATE).
   */
  enqueue(due: DueApproval): Promise<unknown>;
}

/** At most this many steps a tick; the rest wait for the next one. */
const SWEEP_BATCH = 100;

/**
 * Approvals nobody decides expire on their own (issue 43): every `intervalMs`, on every replica,
 * the steps still pending past their time are handed to the inbox as synthetic entries of their
 * thread (durable, exactly once by the inbox's dedup and the database's conditional UPDATE); each
 * entry's turn tells the model, like a deny, and updates the approval message. A failed tick is
 * logged once and retried at the next. Returns the stop function, which waits for a running tick.
 */
export function startApprovalSweep(opts: ApprovalSweepOptions): () => Promise<void> {
  const { log } = opts;
  let running: Promise<void> | undefined;
  let failing = false;
  async function sweep(): Promise<void> {
    try {
      const due = await opts.store.due(opts.platforms, SWEEP_BATCH);
      for (const step of due) await opts.enqueue(step);
      if (due.length > 0)
        log.info({ event: 'approval_expiry_queued', steps: due.length }, 'approvals nobody decided in time expire');
      if (failing) log.info({ event: 'approval_sweep_recovered' }, 'approval sweep works again');
      failing = false;
    } catch (err) {
      // One line per outage, not one per tick.
      if (!failing)
        log.warn({ err, event: 'approval_sweep_failed' }, 'approval sweep failed; retried at the next tick');
      failing = true;
    }
  }
  const tick = () => void (running ??= sweep().finally(() => (running = undefined)));
  const every = setInterval(tick, opts.intervalMs);
  every.unref();
  return async () => {
    clearInterval(every);
    await running;
  };
}
