import { countTokens as countEncodedTokens } from 'gpt-tokenizer';
import type { ChatMessage } from './llm-types.js';

/** Role markers and separators the API wraps around every message (OpenAI's cookbook counts 3–4). */
const PER_MESSAGE = 4;
/** A tool call's framing (id, type, the function wrapper) beyond its name and arguments. */
const PER_TOOL_CALL = 8;
/** Non-text parts (images, audio, files) cannot be counted from text; a low-detail image costs 85. */
const PER_MEDIA_PART = 85;

/** Tokens in a text with the o200k encoding (gpt-4o family); close enough for other models' budgets. */
export function countTokens(text: string): number {
  if (!text) return 0;
  // A user may type `<|endoftext|>`: count it as plain text instead of throwing.
  return countEncodedTokens(text, { disallowedSpecial: new Set() });
}

/** Tokens the messages cost in a request: contents, tool call names and arguments, framing. */
export function countMessageTokens(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const message of messages) total += messageTokens(message);
  return total;
}

/**
 * The newest messages that fit in `maxTokens`, oldest dropped first, in a shape the OpenAI API
 * accepts: an assistant message with tool_calls travels with all its tool results or not at all,
 * and no tool message is left without its call. Leading system/developer messages and the newest
 * user message are always kept, even over budget (without them there is no turn to answer).
 */
export function trimHistory(messages: readonly ChatMessage[], maxTokens: number): ChatMessage[] {
  const units = toUnits(messages);
  let total = units.reduce((sum, unit) => sum + unit.tokens, 0);
  const kept = units.map(() => true);
  for (let i = 0; i < units.length && total > maxTokens; i++) {
    const unit = units[i]!;
    if (unit.pinned) continue;
    kept[i] = false;
    total -= unit.tokens;
  }
  return units.filter((_, i) => kept[i]).flatMap((unit) => unit.messages);
}

/** Messages that are kept or dropped together. */
interface Unit {
  messages: ChatMessage[];
  tokens: number;
  pinned: boolean;
}

/** Groups each tool-calling assistant message with its results; drops exchanges the API would reject. */
function toUnits(messages: readonly ChatMessage[]): Unit[] {
  const newestUser = messages.findLastIndex((m) => m.role === 'user');
  const units: Unit[] = [];
  const add = (group: ChatMessage[], pinned: boolean) =>
    units.push({ messages: group, tokens: countMessageTokens(group), pinned });

  let preamble = true; // still among the leading system/developer messages
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'tool') continue; // an orphan: its call is not right before it
    preamble &&= message.role === 'system' || message.role === 'developer';
    if (message.role !== 'assistant' || !message.tool_calls?.length) {
      add([message], preamble || i === newestUser);
      continue;
    }
    // The results must follow the call directly; collect them, one per call id.
    const pending = new Set(message.tool_calls.map((call) => call.id));
    const group: ChatMessage[] = [message];
    let next = i + 1;
    for (; next < messages.length; next++) {
      const result = messages[next]!;
      if (result.role !== 'tool') break;
      if (pending.delete(result.tool_call_id)) group.push(result);
    }
    i = next - 1;
    if (pending.size === 0) add(group, false);
    // else: a call without all its results is rejected by the API, so the exchange goes.
  }
  return units;
}

function messageTokens(message: ChatMessage): number {
  let tokens = PER_MESSAGE + contentTokens(message.content);
  if ('name' in message && message.name) tokens += countTokens(message.name);
  if (message.role === 'tool') tokens += countTokens(message.tool_call_id);
  if (message.role === 'assistant') {
    tokens += countTokens(message.refusal ?? '');
    for (const call of message.tool_calls ?? []) {
      tokens += PER_TOOL_CALL + countTokens(call.id);
      tokens +=
        call.type === 'function'
          ? countTokens(call.function.name) + countTokens(call.function.arguments)
          : countTokens(call.custom.name) + countTokens(call.custom.input);
    }
    if (message.function_call) tokens += countTokens(message.function_call.name) + countTokens(message.function_call.arguments);
  }
  return tokens;
}

function contentTokens(content: ChatMessage['content']): number {
  if (content === null || content === undefined) return 0;
  if (typeof content === 'string') return countTokens(content);
  let tokens = 0;
  for (const part of content) {
    if (part.type === 'text') tokens += countTokens(part.text);
    else if (part.type === 'refusal') tokens += countTokens(part.refusal);
    else tokens += PER_MEDIA_PART;
  }
  return tokens;
}
