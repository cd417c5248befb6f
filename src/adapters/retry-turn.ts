import type { TurnEvent } from '../contract/turn.js';
import { linkedSignal } from '../net/linked-signal.js';
import { RetryLaterError, type Delivery } from '../inbox/index.js';

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
 */
export function heldForRetry(
  d: Pick<Delivery, 'signal' | 'canRetry'>,
  handle: (signal: AbortSignal, options: { retryable: boolean }) => AsyncIterable<TurnEvent>,
): HeldTurn {
  const link = linkedSignal([d.signal]);
  let retry: RetryLaterError | undefined;
  const source = handle(link.signal, { retryable: d.canRetry === true });
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
