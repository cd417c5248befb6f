/**
 * Token counting, shared by the loop (history budgets) and the tools (capped summaries): the
 * o200k encoding, and the framing the chat API adds per message and tool call.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import { LRUCache } from 'lru-cache';
import type { ChatMessage } from './llm.js';

let tokenizer: GptEncoding | undefined;

/**
 * The o200k encoding, built at the first count rather than at start-up: its tables hold about
 * 20 MB of heap, and a process that has answered nothing needs none of it. Synchronous (the
 * CommonJS build of the package) because counting is; the first turn pays the load once (about
 * 0.15 s).
 *
 * The ranks come from the package's own `data/o200k_base.tiktoken` (OpenAI's published file)
 * rather than from its `o200k_base` module, a 2.4 MB array literal: parsing and compiling that
 * source left about 63 MB of RSS where reading the data file leaves 41–46 MB. The table is the
 * same one (a test compares them): a token is its UTF-8 string when its bytes are one, else its
 * bytes, as the package builds it.
 */
function encoder(): GptEncoding {
  if (!tokenizer) {
    const require = createRequire(import.meta.url);
    const { GptEncoding: Encoding } = require('gpt-tokenizer/cjs/GptEncoding') as {
      GptEncoding: typeof GptEncoding;
    };
    const ranks = o200kRanks(readFileSync(require.resolve('gpt-tokenizer/data/o200k_base.tiktoken'), 'latin1'));
    tokenizer = Encoding.getEncodingApi('o200k_base', () => ranks);
  }
  return tokenizer;
}

/**
 * A `.tiktoken` file's ranks (one `<base64 bytes> <rank>` a line) as gpt-tokenizer's table: at
 * each rank the token's text when its bytes are UTF-8 that decodes and encodes back to the same
 * bytes (a leading byte-order mark does not), else the bytes.
 */
export function o200kRanks(file: string): (string | number[])[] {
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const ranks: (string | number[])[] = [];
  for (let at = 0; at < file.length;) {
    const newline = file.indexOf('\n', at);
    const end = newline < 0 ? file.length : newline;
    const space = file.indexOf(' ', at);
    if (space > at && space < end) {
      const bytes = Buffer.from(file.slice(at, space), 'base64');
      let token: string | number[];
      try {
        token = utf8.decode(bytes);
        if (Buffer.byteLength(token) !== bytes.length) token = [...bytes];
      } catch {
        token = [...bytes];
      }
      ranks[Number(file.slice(space + 1, end))] = token;
    }
    at = end + 1;
  }
  return ranks;
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

/** A user may type `<|endoftext|>`: count it as plain text instead of throwing. */
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * The longest piece of text handed to the encoder at once. gpt-tokenizer's byte-pair merge is
 * quadratic in the length of one pre-tokenized word, and a run without spaces (Chinese or
 * Japanese prose, emoji, `[[[[`) is one word however long: 100,000 CJK characters took minutes
 * in one call. Cut into pieces of at most this many characters, the work is linear in the text.
 */
const PIECE_CHARS = 128;

/**
 * Up to this many characters of runs without spaces are counted in full; past it, an even
 * sample of their pieces about this long, scaled up by characters.
 */
const RUNS_IN_FULL_UP_TO = 4_000;

/**
 * The text counted piece by piece (see `pieceEnd`). Exact where the text has spaces between
 * words, whatever its length. A run longer than a piece is cut every PIECE_CHARS, and each cut
 * may split a token the whole run would have merged: +0.3% on Chinese prose, 0% on emoji and
 * repeated punctuation.
 *
 * Those runs are what the encoder is slow on (microseconds a character of CJK or emoji; English
 * words mostly come from its own cache), so past RUNS_IN_FULL_UP_TO characters of them only
 * every k-th of their pieces is encoded, about that many characters in all, and their count is
 * scaled by characters: 100,000 characters of Chinese in full held the event loop for seconds,
 * even in pieces. Measured within 2% of the full count on Chinese prose, emoji and mixed texts
 * (test/contract/tokens.test.ts); runs whose content alternates in step with the sample could
 * be off by more, which a history budget tolerates.
 */
function encode(text: string): number {
  const steps = encodeSteps(text);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * The count of a long text with a pause (setImmediate) between slices of about SLICE_CHARS
 * encoded characters, remembered like `countTokens`' own, so a later `countTokens` of the same
 * text finds it: for a long answer, whose count in one go (10–15 ms of CPU for 100,000
 * characters of Chinese, 25–94 ms on a busy machine) held every other turn on the replica.
 * Short texts are counted at once. The same count as `countTokens`, to the token.
 */
export async function countTokensInSlices(text: string): Promise<number> {
  if (text.length < REMEMBER_FROM) return countTokens(text);
  const known = counted.get(text);
  if (known !== undefined) return known;
  const steps = encodeSteps(text);
  for (;;) {
    const step = steps.next();
    if (step.done) {
      counted.set(text, step.value);
      return step.value;
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Characters encoded between two pauses of `countTokensInSlices` (two pieces: about 1 ms of CJK). */
const SLICE_CHARS = 256;

/** The most characters of pieces that end at a space counted in one call (words are short there). */
const SPAN_CHARS = 2_048;

/** `encode` as steps: it yields after about SLICE_CHARS characters of work, and returns the count. */
function* encodeSteps(text: string): Generator<void, number> {
  const tokenizer = encoder();
  if (text.length <= PIECE_CHARS) return tokenizer.countTokens(text, AS_PLAIN_TEXT);
  const ends: number[] = [];
  let runChars = 0;
  let work = 0;
  for (let start = 0; start < text.length;) {
    const end = pieceEnd(text, start);
    // A piece cut inside a run is stored negated.
    if (end < text.length && text[end] !== ' ') {
      ends.push(-end);
      runChars += end - start;
    } else ends.push(end);
    work += end - start;
    start = end;
    // Walking is far cheaper than encoding: a pause every 64 slices' worth.
    if (work > 64 * SLICE_CHARS) {
      work = 0;
      yield;
    }
  }
  const stride = Math.max(1, Math.ceil(runChars / RUNS_IN_FULL_UP_TO));
  let tokens = 0;
  let runTokens = 0;
  let sampledRunChars = 0;
  let runPieces = 0;
  let start = 0;
  // Pieces that end at a space are counted together, up to SPAN_CHARS at a time: a cut there
  // changes no token, and one call per piece cost ordinary prose a third more than one call.
  let span = 0;
  work = 0;
  for (const stored of ends) {
    const end = Math.abs(stored);
    if (stored > 0) {
      if (end - span >= SPAN_CHARS) {
        tokens += tokenizer.countTokens(text.slice(span, end), AS_PLAIN_TEXT);
        work += end - span;
        span = end;
      }
    } else {
      if (span < start) tokens += tokenizer.countTokens(text.slice(span, start), AS_PLAIN_TEXT);
      work += start - span;
      if (runPieces++ % stride === 0) {
        runTokens += tokenizer.countTokens(text.slice(start, end), AS_PLAIN_TEXT);
        sampledRunChars += end - start;
        work += end - start;
      }
      span = end;
    }
    start = end;
    if (work > SLICE_CHARS) {
      work = 0;
      yield;
    }
  }
  if (span < text.length) tokens += tokenizer.countTokens(text.slice(span), AS_PLAIN_TEXT);
  return tokens + (sampledRunChars === runChars ? runTokens : Math.round((runTokens * runChars) / sampledRunChars));
}

/**
 * Where the piece that starts at `start` ends. Preferably at a space before a non-space: o200k's
 * pre-tokenizer always starts a word there (the space leads ` word`, or stands alone before a
 * number), and no pattern looks behind, so cutting there changes no token. A run with no such
 * space is cut at the limit, never inside a surrogate pair.
 */
function pieceEnd(text: string, start: number): number {
  const limit = start + PIECE_CHARS;
  if (limit >= text.length) return text.length;
  // Back from the limit to the piece's start only (lastIndexOf would scan a run to the text's start).
  for (let at = limit; at > start; at--) {
    if (text.charCodeAt(at) !== 0x20) continue;
    const next = text[at + 1];
    if (next !== undefined && !/\s/.test(next)) return at;
  }
  const last = text.charCodeAt(limit - 1);
  return last >= 0xd800 && last <= 0xdbff ? limit - 1 : limit;
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
