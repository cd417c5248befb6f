import { setTimeout as sleep } from 'node:timers/promises';
import type { TurnEvent, TurnOptions } from '../contract/turn.js';
import { linkedSignal } from '../net/linked-signal.js';
import { DELIVERED_MARK, RetryLaterError, type Delivery } from '../inbox/index.js';

/** How long a replay waits for another, still-alive run of its entry to record its answer delivered. */
const OTHER_RUN_FINISH_MS = 10_000;

/** One run of an entry's turn, as a delivery consumes it (see `heldForRetry`). */
export interface HeldTurn {
  /** The turn's events, without the `retry` error: they end there, as at a shutdown. */
  events: AsyncIterable<TurnEvent>;
  /** Aborts at a shutdown (the delivery's) and when the turn asked to run again later. */
  signal: AbortSignal;
  /** Throws `RetryLaterError` when the turn asked to run again later; call once the writer is done. */
  rethrow(): void;
}

/**
 * Runs an inbox entry's turn so that Redis or Postgres being away before anything was shown costs
 * a wait, not an answer: the agent is told the inbox can run it again (`canRetry`), and its
 * `retry` error ends the events quietly (the writer shows nothing and posts no note) and is
 * thrown by `rethrow()` for the inbox. On the entry's last try the agent's error is an ordinary
 * one, shown as always.
 *
 * A replay asks, once its turn holds the thread, what the entry's runs have recorded by then: a
 * run begun while an earlier one was still alive (its lease lapsed while its process stalled)
 * waited for the thread behind it, and must not answer again what it answered (`stillToDo`);
 * `adopt` gets what it recorded otherwise (messages it posted, for the writer to edit).
 */
export function heldForRetry(
  d: Pick<Delivery, 'signal' | 'canRetry' | 'attempt' | 'current' | 'recorded'>,
  handle: (signal: AbortSignal, options: TurnOptions) => AsyncIterable<TurnEvent>,
  adopt?: (recorded: string[]) => void,
): HeldTurn {
  const link = linkedSignal([d.signal]);
  let retry: RetryLaterError | undefined;
  const current = d.attempt > 1 ? d.current : undefined;
  const stillToDo = current
    ? async () => {
        let recorded = await current();
        // Another run recorded more while this one waited for the thread: it was alive, and it
        // lets the thread go once its turn ends, a moment before its last post is recorded.
        const since = performance.now();
        while (
          !recorded.includes(DELIVERED_MARK) &&
          recorded.length > d.recorded.length &&
          performance.now() - since < OTHER_RUN_FINISH_MS &&
          !d.signal.aborted
        ) {
          await sleep(100);
          recorded = await current();
        }
        if (recorded.includes(DELIVERED_MARK)) return false;
        adopt?.(recorded);
        return true;
      }
    : undefined;
  const source = handle(link.signal, {
    retryable: d.canRetry === true,
    ...(d.attempt > 1 ? { replay: true } : {}),
    ...(stillToDo ? { stillToDo } : {}),
  });
  async function* events(): AsyncGenerator<TurnEvent, void, undefined> {
    try {
      for await (const event of source) {
        if (event.type === 'error' && event.retry) {
          retry = new RetryLaterError(event.code);
          link.abort(retry);
          return;
        }
        yield event;
      }
    } finally {
      link.dispose();
    }
  }
  return {
    events: events(),
    signal: link.signal,
    rethrow() {
      if (retry) throw retry;
    },
  };
}
