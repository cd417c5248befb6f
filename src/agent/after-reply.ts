import type { LoopResult } from '../contract/extension.js';
import type { IncomingMessage, TurnEvent, TurnFlag } from '../contract/turn.js';
import type { TurnLedger } from './turn-ledger.js';
import type { TurnSummary } from './turn-record.js';

export interface AfterReplyInput {
  message: IncomingMessage;
  tenantId: string;
  seen: TurnSummary;
  flags: TurnFlag[];
  result: LoopResult;
  /** The thread session's save (the state, with this turn's history). */
  save: () => Promise<void>;
  ledger: TurnLedger;
  emit: (e: TurnEvent) => void;
}

/**
 * Everything a turn does once its reply is out: save the thread's state, write the turn record
 * and ledger row, then `done`. The one place that decides what a failure here means to the user.
 */
export async function afterReply(input: AfterReplyInput): Promise<void> {
  const { message, tenantId, seen, flags, result, save, ledger, emit } = input;
  // The turn's two durable writes run side by side (on Postgres and Redis, two round trips
  // become one wait); `done` follows the ledger row.
  const saved = save();
  saved.catch(() => {});
  await ledger.record(
    message,
    tenantId,
    seen,
    { outcome: 'answered', flags: [...flags], tools: result.toolCalls.map((c) => ({ tool: c.tool, ok: c.ok })) },
    result.usage,
    result.toolCalls.length,
  );
  emit({
    type: 'done',
    usage: result.usage,
    toolCalls: result.toolCalls,
    data: result.data,
    ...(flags.length ? { flags } : {}),
  });
  // A failed save surfaces here, after `done`: the turn ends as an error.
  await saved;
}
