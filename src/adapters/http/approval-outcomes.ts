import type { ToolCallRecord, TurnEvent } from '../../contract/turn.js';
import type { Block } from '../../reply/model.js';
import type { KvStore } from '../../state/kv.js';
import type { Logger } from '../../telemetry/logger.js';

/**
 * What an HTTP approval came to (issue 43), kept in the shared store (Redis with REDIS_URL) by
 * the turn that decided its step: a `POST /api/approvals/{id}`, or the sweep's expiry entry on any
 * replica. `GET /api/approvals/{id}` answers from it: a JSON poller, or an SSE client waiting for
 * the decision, sees the outcome and the turn's final answer, whoever decided and wherever.
 */
export interface ApprovalOutcome {
  outcome: 'approved' | 'denied' | 'expired';
  /** When it was decided (ISO). */
  at: string;
  /** The turn's final answer after the decision. */
  response: string;
  blocks: Block[];
  toolCalls: Pick<ToolCallRecord, 'tool' | 'ok' | 'summary'>[];
}

/** As long as a client may come back for the answer. */
const OUTCOME_TTL_MS = 24 * 3_600_000;
const outcomeKey = (stepId: string) => `http:approval-outcome:${stepId}`;

export function readOutcome(kv: KvStore, stepId: string): Promise<ApprovalOutcome | undefined> {
  return kv.get<ApprovalOutcome>(outcomeKey(stepId));
}

/**
 * The turn's events as they pass, remembered once the turn that decided the step (its
 * `approval_decided` event: a click on a decided step has none) has its reply and is done.
 * A failure to store is logged; the caller's answer does not depend on it. Without a store, the
 * outcome is only told to the caller (`outcome()`).
 */
export function rememberOutcome(
  kv: KvStore | undefined,
  stepId: string,
  events: AsyncIterable<TurnEvent>,
  log: Logger,
): { events: AsyncIterable<TurnEvent>; outcome(): ApprovalOutcome | undefined } {
  let decided: Extract<TurnEvent, { type: 'approval_decided' }> | undefined;
  let reply: Extract<TurnEvent, { type: 'reply' }> | undefined;
  let stored: ApprovalOutcome | undefined;
  async function* watched(): AsyncGenerator<TurnEvent> {
    for await (const event of events) {
      if (event.type === 'approval_decided') decided = event;
      else if (event.type === 'reply') reply = event;
      else if (event.type === 'done' && decided && reply) {
        stored = {
          outcome: decided.outcome,
          at: decided.at,
          response: reply.reply.text,
          blocks: reply.reply.blocks.filter((b) => b.type !== 'file'),
          toolCalls: event.toolCalls.map(({ tool, ok, summary }) => ({ tool, ok, summary })),
        };
        await kv
          ?.set(outcomeKey(stepId), stored, OUTCOME_TTL_MS)
          .catch((err: unknown) => log.warn({ err, stepId }, 'could not keep an approval’s outcome for its callers'));
      }
      yield event;
    }
  }
  return { events: watched(), outcome: () => stored };
}
