import type { ThreadState } from '../contract/thread-state.js';
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
  /** Saves the state; called again, it returns the first call's promise (the state is saved once). */
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
    const save = () => (saving ??= deps.store.save(state));
    try {
      return await fn({ state, signal: link.signal, save });
    } finally {
      try {
        await save();
      } finally {
        link.dispose();
      }
    }
  });
}
