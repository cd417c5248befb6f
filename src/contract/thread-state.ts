import type { ChatMessage } from './llm.js';
import type { IncomingMessage } from './turn.js';

/**
 * Everything Switchboard remembers about one thread. Stored as one JSON value in keyv;
 * loaded at the start of a turn, saved at its end (turns of one thread never overlap).
 */
export interface ThreadState {
  key: string;
  /** Trimmed conversation: user, assistant and tool messages of earlier turns. */
  history: ChatMessage[];
  /** Each history message's token count, in step with `history` (so a turn tokenizes only its new messages). */
  historyTokens?: number[];
  /** Each tool family's own state, under its own key (e.g. `competitors`, `campaigns`). */
  tools: Record<string, unknown>;
  /** Per-thread caches with an expiry (query embeddings, web results). */
  cache: Record<string, { value: unknown; expiresAt: number }>;
  /** An active mode (e.g. a quote mode waiting for answers to its questions). */
  mode?: { name: string; data?: Record<string, unknown> };
  /** The thread before the bot's turns (issue 42): the platform id of the last message the bot has seen, so a turn fetches only what is newer. */
  threadContext?: { cursor: string };
  updatedAt: string;
}

export function threadKey(m: Pick<IncomingMessage, 'platform' | 'channelId' | 'threadId'>, tenantId: string): string {
  return [m.platform, tenantId, m.channelId, m.threadId].map((p) => p.replaceAll(':', '_')).join(':');
}

export function newThreadState(key: string): ThreadState {
  return { key, history: [], tools: {}, cache: {}, updatedAt: new Date(0).toISOString() };
}

export function getToolState<T>(state: ThreadState, family: string, fallback: () => T): T {
  const existing = state.tools[family];
  if (existing !== undefined) return existing as T;
  const created = fallback();
  state.tools[family] = created;
  return created;
}

export function setToolState<T>(state: ThreadState, family: string, value: T): void {
  state.tools[family] = value;
}

export function cacheGet<T>(state: ThreadState, key: string, now = Date.now()): T | undefined {
  const entry = state.cache[key];
  if (!entry) return undefined;
  if (entry.expiresAt <= now) {
    delete state.cache[key];
    return undefined;
  }
  return entry.value as T;
}

export function cacheSet(state: ThreadState, key: string, value: unknown, ttlMs: number, now = Date.now()): void {
  state.cache[key] = { value, expiresAt: now + ttlMs };
}

/** Drops expired cache entries so a long-lived thread does not grow without bound. */
export function pruneCache(state: ThreadState, now = Date.now()): void {
  for (const [k, v] of Object.entries(state.cache)) if (v.expiresAt <= now) delete state.cache[k];
}
