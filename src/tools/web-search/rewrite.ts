import { LlmError, type ChatMessage, type LlmClient } from '../../contract/llm.js';
import { linkedSignal } from '../../net/linked-signal.js';

/**
 * Query rewriting: a conversational question becomes a search-engine query before it goes
 * to Tavily ("Can you tell me what the weather is like in NYC?" → "weather NYC"). It is an
 * optimisation, never a dependency: any failure or a slow model falls back to the original.
 */

export type RewriteReason =
  /** The model rewrote it (its answer may equal the original). */
  | 'rewritten'
  /** Left to Tavily as is; no model call. */
  | 'short'
  | 'url'
  | 'code'
  /** The model call failed, timed out, or answered something that is not a query. */
  | 'failed'
  | 'timeout'
  | 'unusable';

export interface RewrittenQuery {
  /** What to search for. */
  query: string;
  original: string;
  reason: RewriteReason;
  /** The current year was added because the question asks for latest / current / recent things. */
  yearAdded: boolean;
}

export interface RewriteOptions {
  llm: LlmClient;
  now: () => Date;
  /** The turn's signal: when it aborts, so does the rewrite (and the error propagates). */
  signal: AbortSignal;
  timeoutMs: number;
  /** A faster model for the rewrite (REWRITE_MODEL); default the chat model. */
  model?: string;
}

/** At most this many words go to Tavily unchanged: already a query, rewriting cannot help. */
const SHORT_QUERY_WORDS = 3;
const MAX_QUERY_CHARS = 300;
const URL = /\bhttps?:\/\/\S+|\bwww\.[^\s.]+\.\S+/i;
const CODE_BLOCK = /```/;
const TEMPORAL = /\b(latest|current(?:ly)?|recent(?:ly)?)\b/i;
const HAS_YEAR = /\b(?:19|20)\d{2}\b/;

export type SkipReason = Extract<RewriteReason, 'short' | 'url' | 'code'>;

/** Why a query is searched as is, or undefined when the model should rewrite it. */
export function skipReason(query: string): SkipReason | undefined {
  if (URL.test(query)) return 'url';
  if (CODE_BLOCK.test(query)) return 'code';
  if (wordCount(query) <= SHORT_QUERY_WORDS) return 'short';
  return undefined;
}

export function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

export function isTemporal(query: string): boolean {
  return TEMPORAL.test(query);
}

/** Appends the year to a latest / current / recent query that names no year of its own. */
export function withYear(query: string, original: string, year: number): { query: string; added: boolean } {
  if (!isTemporal(original) || HAS_YEAR.test(query)) return { query, added: false };
  return { query: `${query} ${year}`, added: true };
}

export function rewritePrompt(year: number): string {
  return [
    'Rewrite the user message into one concise web search query.',
    'Keep names, products, versions, places and key terms; drop greetings, filler and question words.',
    `If it asks for the latest, current or recent information, include the year ${year}.`,
    'If it already is a good search query, return it unchanged.',
    'Answer with the query only: one line, no quotes, no explanation.',
  ].join('\n');
}

/**
 * The query to search for. Never throws except when the turn itself was aborted; callers
 * read `reason` to log what happened.
 */
export async function rewriteSearchQuery(original: string, opts: RewriteOptions): Promise<RewrittenQuery> {
  const query = original.trim();
  const year = opts.now().getUTCFullYear();
  const skip = skipReason(query);
  if (skip) {
    // A URL or code is searched verbatim; a short query may still want the year.
    const dated = skip === 'short' ? withYear(query, query, year) : { query, added: false };
    return { query: dated.query, original, reason: skip, yearAdded: dated.added };
  }

  const outcome = await askModel(query, year, opts);
  const base = outcome.query ?? query;
  const dated = withYear(base, query, year);
  return { query: dated.query, original, reason: outcome.reason, yearAdded: dated.added };
}

async function askModel(
  query: string,
  year: number,
  opts: RewriteOptions,
): Promise<{ query?: string; reason: Extract<RewriteReason, 'rewritten' | 'failed' | 'timeout' | 'unusable'> }> {
  // Not `AbortSignal.any([opts.signal, AbortSignal.timeout(…)])`: Node keeps such a signal alive
  // for good once a listener is added and not removed (the LLM client adds one), a leak per call.
  const budget = linkedSignal([opts.signal], opts.timeoutMs);
  const timedOut = () => budget.signal.aborted && !opts.signal.aborted;
  const messages: ChatMessage[] = [
    { role: 'system', content: rewritePrompt(year) },
    { role: 'user', content: query },
  ];
  // One retry on a transient failure (5xx, 429, connection) while the time budget lasts; the SDK's own retries are off here.
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        const completion = await opts.llm.complete({
          ...(opts.model ? { model: opts.model } : {}),
          maxRetries: 0,
          messages,
          temperature: 0,
          maxTokens: 50,
          signal: budget.signal,
        });
        const cleaned = cleanModelQuery(completion.content);
        return cleaned ? { query: cleaned, reason: 'rewritten' } : { reason: 'unusable' };
      } catch (err) {
        // The turn was cancelled: searching anyway would be wasted work.
        if (opts.signal.aborted) throw err;
        if (timedOut()) return { reason: 'timeout' };
        const transient =
          err instanceof LlmError &&
          (err.kind === 'server' || err.kind === 'rate_limited' || err.kind === 'unreachable');
        if (attempt >= 2 || !transient) return { reason: 'failed' };
      }
    }
  } finally {
    budget.dispose();
  }
}

/** The model's answer as a one-line query, or undefined when it is not one. */
export function cleanModelQuery(answer: string): string | undefined {
  const line = answer
    .split('\n')
    .map((l) => l.trim())
    .find(Boolean);
  if (!line) return undefined;
  const query = line
    .replace(/^(?:search\s+)?query\s*:\s*/i, '')
    .replace(/^["'`“”‘’]+|["'`“”‘’]+$/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (!query || query.length > MAX_QUERY_CHARS) return undefined;
  return query;
}
