import type { ThreadState } from '../contract/thread-state.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { linkedSignal } from '../net/linked-signal.js';

export interface ThreadStoreLike {
  load(key: string): Promise<ThreadState>;
  save(state: ThreadState): Promise<void>;
}
export interface ThreadLockLike {
  /** `fn` gets a signal that aborts if the lock is lost (another replica took the lease). */
  runExclusive<T>(key: string, fn: (lockLost: AbortSignal) => Promise<T>): Promise<T>;
}

/** A turn's hold on its thread: the loaded state, the turn's signal, and the one save of the state. */
export interface ThreadSession {
  state: ThreadState;
  /** Aborts on the turn's timeout, the caller's abort, or a lost lock. */
  signal: AbortSignal;
  /**
   * Saves the state, retried (`SAVE_RETRY_DELAYS_MS`) before it rejects; called again, it returns
   * the first call's promise (the state is saved once). Whoever calls it first owns its failure.
   */
  save: () => Promise<void>;
}

export interface ThreadSessionOptions {
  /** The caller's signal (a shutdown, a client gone). */
  outer: AbortSignal | undefined;
  timeoutMs: number;
  /** Told the turn's signal as soon as it exists, so a failure can tell its timeout from other aborts. */
  onSignal: (signal: AbortSignal) => void;
}

/**
 * The waits between a failed save and its next try: three tries within a second. A save writes the
 * same state again, so a retry is safe; a short blip (a reconnect, a failover) may pass within them.
 */
export const SAVE_RETRY_DELAYS_MS = [100, 400] as const;

/** Tries `save` once, then once more after each delay; the last failure rejects as it came. */
export async function saveWithRetry(
  save: () => Promise<void>,
  delaysMs: readonly number[] = SAVE_RETRY_DELAYS_MS,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await save();
    } catch (err) {
      const delay = delaysMs[attempt];
      if (delay === undefined) throw err;
      await sleep(delay);
    }
  }
}

/**
 * Runs `fn` holding the thread's lock, with its state loaded. However `fn` ends, the state is
 * saved before the lock is released: tool state gathered before a failure is kept ("nothing lost").
 */
export async function inThread<T>(
  deps: { lock: ThreadLockLike; store: ThreadStoreLike },
  key: string,
  opts: ThreadSessionOptions,
  fn: (session: ThreadSession) => Promise<T>,
): Promise<T> {
  return deps.lock.runExclusive(key, async (lockLost) => {
    // The turn's clock starts once it holds the thread: waiting behind an earlier turn is not its time.
    const link = linkedSignal([lockLost, opts.outer], opts.timeoutMs);
    opts.onSignal(link.signal);
    const state = await deps.store.load(key).catch((err: unknown) => {
      link.dispose();
      throw err;
    });
    let saving: Promise<void> | undefined;
    const save = () => (saving ??= saveWithRetry(() => deps.store.save(state)));
    try {
      return await fn({ state, signal: link.signal, save });
    } finally {
      try {
        // A save `fn` started is its own to report (after a reply it is logged, never shown):
        // the lock is held until it settles. Otherwise the state is saved now, and a failure fails the turn.
        if (saving) await saving.catch(() => {});
        else await save();
      } finally {
        link.dispose();
      }
    }
  });
}
