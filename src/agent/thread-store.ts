import { z } from 'zod';
import { silentLogger, type Logger } from '../telemetry/logger.js';
import type { KvStore } from '../state/kv.js';
import type { ChatMessage } from '../contract/llm.js';
import { newThreadState, pruneCache, type ThreadState } from '../contract/thread-state.js';

export interface ThreadStore {
  /** The saved state, or a fresh one when there is none (or it cannot be read). */
  load(key: string): Promise<ThreadState>;
  /** Stamps updatedAt, drops expired cache entries and saves with the thread TTL. */
  save(state: ThreadState): Promise<void>;
}

export interface ThreadStoreOptions {
  /** A thread nobody writes to for this long is forgotten (THREAD_TTL_DAYS). */
  ttlMs: number;
  log?: Logger;
  now?: () => number;
}

/**
 * What a stored value must look like to be trusted. Fields added after the first release have
 * defaults so older values still load. Messages are checked only for a known role: mirroring
 * every OpenAI message variant here would duplicate its types, and trimCounted already drops
 * tool messages that lost their pair.
 */
const ROLES: ReadonlySet<unknown> = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);
const isMessage = (m: unknown) =>
  typeof m === 'object' && m !== null && !Array.isArray(m) && ROLES.has((m as { role?: unknown }).role);
/**
 * Checked in place with one loop (so are the counts beside it): a history is a hundred messages
 * or more, and a schema per element (copying each message, as a loose object does) was a tenth of
 * a turn's CPU.
 */
const storedHistory = z.custom<ChatMessage[]>((h) => Array.isArray(h) && h.every(isMessage), {
  error: 'expected a list of messages with known roles',
});
const storedState = z.object({
  history: storedHistory,
  historyTokens: z
    .custom<number[]>((c) => Array.isArray(c) && c.every((n) => Number.isSafeInteger(n) && n >= 0))
    .optional(),
  tools: z.record(z.string(), z.unknown()).default({}),
  cache: z.record(z.string(), z.object({ value: z.unknown(), expiresAt: z.number() })).default({}),
  mode: z.object({ name: z.string(), data: z.record(z.string(), z.unknown()).optional() }).optional(),
  threadContext: z.object({ cursor: z.string() }).optional(),
  updatedAt: z.string().default(() => new Date(0).toISOString()),
});

export function createThreadStore(kv: KvStore, options: ThreadStoreOptions): ThreadStore {
  const log = options.log ?? silentLogger();
  const now = options.now ?? Date.now;
  const storageKey = (key: string) => `thread:${key}`;

  return {
    async load(key) {
      let stored: unknown;
      try {
        stored = await kv.get<unknown>(storageKey(key));
      } catch (err) {
        // Unparseable JSON is this thread's problem; anything else (Redis down) is the turn's.
        if (!(err instanceof SyntaxError)) throw err;
        log.warn({ thread: key, err }, 'stored thread state is not valid JSON; starting the thread afresh');
        return newThreadState(key);
      }
      if (stored === undefined) return newThreadState(key);
      const parsed = storedState.safeParse(stored);
      if (!parsed.success) {
        const problem = parsed.error.issues[0];
        log.warn(
          { thread: key, path: problem?.path.join('.'), problem: problem?.message },
          'stored thread state has an unexpected shape; starting the thread afresh',
        );
        return newThreadState(key);
      }
      const { history, historyTokens, mode, threadContext, ...rest } = parsed.data;
      const state: ThreadState = { ...rest, key, history };
      // Counts that do not match the history (an older value, a hand edit) are recomputed.
      if (historyTokens?.length === history.length) state.historyTokens = historyTokens;
      if (mode) state.mode = mode;
      if (threadContext) state.threadContext = threadContext;
      return state;
    },

    async save(state) {
      const at = now();
      state.updatedAt = new Date(at).toISOString();
      pruneCache(state, at);
      await kv.set(storageKey(state.key), state, options.ttlMs);
    },
  };
}
