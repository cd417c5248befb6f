import type { LoopResult } from '../contract/extension.js';
import type { IncomingMessage, TurnEvent, TurnFlag } from '../contract/turn.js';
import type { Logger } from '../telemetry/logger.js';
import type { TurnLedger } from './turn-ledger.js';
import type { TurnSummary } from './turn-record.js';
import { SAVE_RETRY_DELAYS_MS } from './thread-session.js';

export interface AfterReplyInput {
  message: IncomingMessage;
  tenantId: string;
  seen: TurnSummary;
  flags: TurnFlag[];
  result: LoopResult;
  /** The thread session's save (the state, with this turn's history; retried before it rejects). */
  save: () => Promise<void>;
  ledger: TurnLedger;
  emit: (e: TurnEvent) => void;
  /** The turn's logger (it carries the thread key). */
  log: Logger;
}

/**
 * Everything a turn does once its reply is out: save the thread's state, write the turn record
 * and ledger row, then `done`. The one place that decides what a failure here means to the user:
 * nothing. A turn that has answered stays answered; what fails after the reply is retried or logged.
 */
export async function afterReply(input: AfterReplyInput): Promise<void> {
  const { message, tenantId, seen, flags, result, save, ledger, emit, log } = input;
  // The turn's two durable writes run side by side (on Postgres and Redis, two round trips
  // become one wait); `done` follows the ledger row.
  const saved = settleSave(save, log);
  // A ledger or turn-record write that fails never fails the turn: the ledger keeps the rows in the
  // usage journal, written once the database is back (src/agent/usage-journal.ts).
  await ledger.record(
    message,
    tenantId,
    seen,
    {
      outcome: 'answered',
      flags: [...flags],
      tools: result.toolCalls.map((c) => ({ tool: c.tool, ok: c.ok, ...(c.approval ? { approval: c.approval } : {}) })),
    },
    result.usage,
    result.toolCalls.length,
    result.model,
  );
  emit({
    type: 'done',
    usage: result.usage,
    toolCalls: result.toolCalls,
    data: result.data,
    ...(flags.length ? { flags } : {}),
    ...(result.model ? { model: result.model } : {}),
    ...(seen.id ? { turnId: seen.id } : {}),
  });
  await saved;
}

/**
 * Saves the thread's state after a reply (the session retries it) and never rejects: a save that
 * still fails is one error line, with the thread key from `log` and no text. The next turn in the
 * thread then reads the state as it was before this one (this exchange missing from its history).
 */
export async function settleSave(save: () => Promise<void>, log: Logger): Promise<void> {
  try {
    await save();
  } catch (err) {
    log.error(
      { err, event: 'thread_state_save_failed', attempts: SAVE_RETRY_DELAYS_MS.length + 1 },
      'could not save the thread state after the reply; the user was answered',
    );
  }
}
