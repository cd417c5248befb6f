/**
 * Token counting, shared by the loop (history budgets) and the tools (capped summaries): the
 * o200k encoding, and the framing the chat API adds per message and tool call.
 */
import { createRequire } from 'node:module';
import type * as TokenizerModule from 'gpt-tokenizer';
import { LRUCache } from 'lru-cache';
import type { ChatMessage } from './llm.js';

type Tokenizer = typeof TokenizerModule;
let tokenizer: Tokenizer | undefined;

/**
 * The o200k tables, loaded at the first count rather than at start-up: they hold about 55 MB
 * (more than the rest of the core together), and a process that has answered nothing needs none
 * of it. Loaded synchronously (the CommonJS build of the same package) because counting is
 * synchronous; the first turn pays the load once (0.1–0.2 s).
 */
function encoder(): Tokenizer {
  tokenizer ??= createRequire(import.meta.url)('gpt-tokenizer') as Tokenizer;
  return tokenizer;
}

/** Role markers and separators the API wraps around every message (OpenAI's cookbook counts 3–4). */
const PER_MESSAGE = 4;
/** A tool call's framing (id, type, the function wrapper) beyond its name and arguments. */
const PER_TOOL_CALL = 8;
/** Non-text parts (images, audio, files) cannot be counted from text; a low-detail image costs 85. */
const PER_MEDIA_PART = 85;

/** Texts this long are remembered with their count (hashing one costs far less than encoding it). */
const REMEMBER_FROM = 512;
/**
 * Long texts counted lately: the system prompt is the same for every turn of a tenant and was
 * encoded anew each time. Bounded by characters held (about 2 MB).
 */
const counted = new LRUCache<string, number>({ maxSize: 1_000_000, sizeCalculation: (_, text) => text.length });

/** Tokens in a text with the o200k encoding (gpt-4o family); close enough for other models' budgets. */
export function countTokens(text: string): number {
  if (!text) return 0;
  if (text.length < REMEMBER_FROM) return encode(text);
  let tokens = counted.get(text);
  if (tokens === undefined) counted.set(text, (tokens = encode(text)));
  return tokens;
}

function encode(text: string): number {
  // A user may type `<|endoftext|>`: count it as plain text instead of throwing.
  return encoder().countTokens(text, { disallowedSpecial: new Set() });
}

/** Tokens the messages cost in a request: contents, tool call names and arguments, framing. */
export function countMessageTokens(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const message of messages) total += messageTokens(message);
  return total;
}

/** Tokens one message costs in a request (its content, tool calls and framing). */
export function messageTokens(message: ChatMessage): number {
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
    if (message.function_call)
      tokens += countTokens(message.function_call.name) + countTokens(message.function_call.arguments);
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
