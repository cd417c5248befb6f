import type { ChatMessage } from '../contract/llm.js';
import { countTokensInSlices, messageTokens } from '../contract/tokens.js';

/** A history with each message's token count, in step (kept with the thread, so no turn re-counts it). */
export interface CountedHistory {
  messages: ChatMessage[];
  tokens: number[];
}

/**
 * Counts the texts of messages about to be kept (a turn's answer, its tool calls and results) a
 * slice at a time, with pauses between, so that `trimCounted` finds their counts remembered: a
 * 100,000-character answer counted in one go held the event loop 25–94 ms (issue 39).
 */
export async function countAhead(messages: readonly ChatMessage[]): Promise<void> {
  for (const message of messages) {
    const content = message.content;
    if (typeof content === 'string') await countTokensInSlices(content);
    else if (Array.isArray(content))
      for (const part of content) {
        if (part.type === 'text') await countTokensInSlices(part.text);
        else if (part.type === 'refusal') await countTokensInSlices(part.refusal);
      }
    if (message.role === 'assistant')
      for (const call of message.tool_calls ?? [])
        await countTokensInSlices(call.type === 'function' ? call.function.arguments : call.custom.input);
  }
}

/**
 * The newest messages that fit in `maxTokens`, oldest dropped first, in a shape the OpenAI API
 * accepts: an assistant message with tool_calls travels with all its tool results or not at all,
 * and no tool message is left without its call. Leading system/developer messages and the newest
 * user message are always kept, even over budget (without them there is no turn to answer).
 * Returned with each kept message's token count: `known[i]` is message i's count when an earlier
 * turn computed it (the thread's stored counts cover its stored history); only the others are
 * tokenized.
 */
export function trimCounted(
  messages: readonly ChatMessage[],
  maxTokens: number,
  known: readonly number[] = [],
): CountedHistory {
  const counts = messages.map((m, i) => known[i] ?? messageTokens(m));
  // The common case (a stored history, already trimmed, read back for the next request): it fits
  // and its shape is sound, so it is kept whole without grouping it into units.
  if (counts.reduce((a, b) => a + b, 0) <= maxTokens && wellFormed(messages))
    return { messages: [...messages], tokens: counts };
  const units = toUnits(messages, (i) => counts[i]!);
  let total = units.reduce((sum, unit) => sum + unit.tokens, 0);
  const kept = units.map(() => true);
  for (let i = 0; i < units.length && total > maxTokens; i++) {
    const unit = units[i]!;
    if (unit.pinned) continue;
    kept[i] = false;
    total -= unit.tokens;
  }
  const out: CountedHistory = { messages: [], tokens: [] };
  for (const [i, unit] of units.entries()) {
    if (!kept[i]) continue;
    out.messages.push(...unit.messages);
    out.tokens.push(...unit.counts);
  }
  return out;
}

/**
 * True when `toUnits` would keep every message: each tool-calling assistant message is followed
 * directly by exactly one result per call, and no other tool message appears. One pass, no units.
 */
function wellFormed(messages: readonly ChatMessage[]): boolean {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'tool') return false; // not right after its call
    if (message.role !== 'assistant' || !message.tool_calls?.length) continue;
    const pending = message.tool_calls.map((call) => call.id);
    let next = i + 1;
    for (; next < messages.length; next++) {
      const result = messages[next]!;
      if (result.role !== 'tool') break;
      const at = pending.indexOf(result.tool_call_id);
      if (at < 0) return false; // a result for no pending call (unknown or repeated)
      pending.splice(at, 1);
    }
    if (pending.length > 0) return false;
    i = next - 1;
  }
  return true;
}

/** Messages that are kept or dropped together. */
interface Unit {
  messages: ChatMessage[];
  counts: number[];
  tokens: number;
  pinned: boolean;
}

/** Groups each tool-calling assistant message with its results; drops exchanges the API would reject. */
function toUnits(messages: readonly ChatMessage[], count: (index: number) => number): Unit[] {
  const newestUser = messages.findLastIndex((m) => m.role === 'user');
  const units: Unit[] = [];
  const add = (indexes: number[], pinned: boolean) => {
    const counts = indexes.map(count);
    units.push({
      messages: indexes.map((i) => messages[i]!),
      counts,
      tokens: counts.reduce((a, b) => a + b, 0),
      pinned,
    });
  };

  let preamble = true; // still among the leading system/developer messages
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'tool') continue; // an orphan: its call is not right before it
    preamble &&= message.role === 'system' || message.role === 'developer';
    if (message.role !== 'assistant' || !message.tool_calls?.length) {
      add([i], preamble || i === newestUser);
      continue;
    }
    // The results must follow the call directly; collect them, one per call id.
    const pending = new Set(message.tool_calls.map((call) => call.id));
    const group = [i];
    let next = i + 1;
    for (; next < messages.length; next++) {
      const result = messages[next]!;
      if (result.role !== 'tool') break;
      if (pending.delete(result.tool_call_id)) group.push(next);
    }
    i = next - 1;
    if (pending.size === 0) add(group, false);
    // else: a call without all its results is rejected by the API, so the exchange goes.
  }
  return units;
}
