/**
 * The thread before a turn (issue 42): what an adapter fetches from its platform and the core
 * bounds, fences and keeps a cursor for. Other people's words: data, never instructions.
 */

/** One earlier message of the thread, as its platform showed it. */
export interface ThreadContextMessage {
  /** The platform's id of the message (Slack ts, Discord snowflake). */
  id: string;
  /** The author's display name, resolved by the adapter (cached there). */
  author: string;
  /** When it was posted, ISO 8601. */
  at: string;
  text: string;
  /** Files shared with it, by name and type (their content is not read here). */
  files?: { name: string; type: string }[];
  /** The message was edited after it was posted. */
  edited?: boolean;
  /** Posted by an app or bot rather than a person. */
  bot?: boolean;
}

/** What one fetch found, oldest first, and how many platform calls it took. */
export interface ThreadContextFetch {
  messages: ThreadContextMessage[];
  calls: number;
}

/**
 * Given to the core by an adapter with a turn that has a thread before it (never stored in the
 * inbox: the adapter builds it when the turn runs). The core calls `fetch` at most once a turn,
 * inside the turn's thread lock, with the cursor its thread state keeps.
 */
export interface ThreadContextSource {
  /**
   * The id the cursor moves to once this turn has seen its thread: the turn's own message (the
   * next turn fetches only what came after it).
   */
  readonly upTo: string;
  /**
   * The messages after `since` (exclusive; undefined: from the thread's start, the root
   * included) and before the turn's own message, leaving out the bot's own. May answer with
   * nothing and no call when the platform's events say nothing new was posted since `since`.
   * Throws a `ThreadContextError` (or anything) when the platform refuses; the turn goes on
   * without context.
   */
  fetch(since: string | undefined, signal: AbortSignal): Promise<ThreadContextFetch>;
}

/** Why a fetch failed, as the platform said it (`ratelimited`, `missing_scope`, `not_in_channel`, `timeout`…). */
export class ThreadContextError extends Error {
  constructor(
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(`thread context unavailable: ${code}`, options);
    this.name = 'ThreadContextError';
  }
}

/** What marks a turn tainted: words of people other than the asker reached the model. */
export type TaintReason = 'thread_context' | 'attachment' | 'flagged_message';
