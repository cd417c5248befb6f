import type { RecallHandler, TurnScope } from '../contract/extension.js';
import type { TurnSummary } from './turn-record.js';

/**
 * What the families recall for a turn (long-term memory, issue 45), asked once before the first
 * model call: notes for the request's tail (after the cacheable prefix, never kept in the thread's
 * history), and their count for the turn record. A recall that fails costs the turn its notes,
 * never its answer.
 */
export async function recallNotes(
  recall: RecallHandler,
  scope: TurnScope,
  text: string,
  signal: AbortSignal,
  seen: TurnSummary,
): Promise<string[] | undefined> {
  try {
    const got = await recall(scope, text, signal);
    if (!got || got.count === 0 || !got.note) return undefined;
    seen.memories = got.count;
    return [got.note];
  } catch (err) {
    if (signal.aborted) throw err;
    scope.log.warn({ err, code: 'memory_recall_failed' }, 'memory recall failed; answering without it');
    return undefined;
  }
}
