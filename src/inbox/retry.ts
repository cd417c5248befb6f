import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { isConnectionError } from '../contract/infra-errors.js';
import { redisReadyWithin } from '../net/redis-connection.js';
import type { Logger } from '../telemetry/logger.js';
import { RetryLaterError, type InboxOptions } from './inbox.js';

/** The wait before an entry's first rerun; each next one doubles, up to `retryMaxMs`. */
export const RETRY_FIRST_DELAY_MS = 500;

/** The wait before rerun number `retry` (1 = the first rerun): doubling from 0.5 s, capped, ±10 % jitter. */
export function retryDelayMs(retry: number, maxMs: number): number {
  const base = Math.min(maxMs, RETRY_FIRST_DELAY_MS * 2 ** Math.max(0, retry - 1));
  return Math.max(1, Math.min(maxMs, Math.round(base * (0.9 + Math.random() * 0.2))));
}

/** How long an entry waits in all before its last run (without jitter): the outage it rides out. */
export function retryBudgetMs(attempts: number, maxMs: number): number {
  let total = 0;
  for (let retry = 1; retry <= attempts; retry++) total += Math.min(maxMs, RETRY_FIRST_DELAY_MS * 2 ** (retry - 1));
  return total;
}

export interface OutageLog {
  /** An entry's run could not reach Redis or Postgres and runs again (`retry`: which rerun is next). */
  waiting(entry: string, retry: number): void;
  /** An entry's run ended (`through`: it got past its storage; false: its last try failed too). */
  ended(entry: string, through: boolean): void;
}

/**
 * One warn line when the first turn cannot reach Redis or Postgres (debug for every other), and
 * one info line once every turn that waited got through: an outage is told once, not per entry.
 * An entry that waited here but ran on another replica (Redis) is forgotten once it has not been
 * seen for a while, so the next outage is told too.
 */
export function createOutageLog(log: Logger, o: Pick<InboxOptions, 'retryAttempts' | 'retryMaxMs'>): OutageLog {
  let since: number | undefined;
  /** Entries waiting, with when each last failed. */
  const waiting = new Map<string, number>();
  let waited = 0;
  const forgetAfterMs = Math.max(60_000, 3 * o.retryMaxMs);
  const prune = (now: number) => {
    for (const [entry, at] of waiting) if (now - at > forgetAfterMs) waiting.delete(entry);
    if (waiting.size === 0) since = undefined;
  };
  return {
    waiting(entry, retry) {
      const now = Date.now();
      prune(now);
      if (!waiting.has(entry)) waited = since === undefined ? 1 : waited + 1;
      waiting.set(entry, now);
      if (since !== undefined) return log.debug({ entry, retry }, 'turn waits for Redis or Postgres');
      since = now;
      log.warn(
        { entry, retries: o.retryAttempts, budgetMs: retryBudgetMs(o.retryAttempts, o.retryMaxMs) },
        'turns cannot reach Redis or Postgres: each waits and runs again with backoff, in its thread’s order (told once per outage)',
      );
    },
    ended(entry, through) {
      if (!waiting.delete(entry) || since === undefined) return;
      const started = since;
      prune(Date.now());
      if (waiting.size > 0) return;
      if (through)
        log.info(
          { outageMs: Date.now() - started, turns: waited },
          'turns reach Redis and Postgres again; those that waited ran',
        );
      since = undefined;
    },
  };
}

/**
 * Whether a failed run waits and runs again: its turn said so, or the delivery itself could not
 * reach Redis or Postgres (or its platform) before the turn (a delivery shows nothing before it,
 * and never throws once it has).
 */
export function shouldRetry(err: unknown): boolean {
  return err instanceof RetryLaterError || isConnectionError(err);
}

/**
 * Runs an entry (the in-process inbox): again after a backoff while its delivery throws
 * `RetryLaterError` and tries are left; the caller keeps the thread meanwhile, so the thread's
 * later entries wait behind it. An abort (shutdown) ends the wait and the entry.
 */
export async function runWithRetries(
  run: (attempt: number, canRetry: boolean) => Promise<void>,
  entry: string,
  o: Pick<InboxOptions, 'retryAttempts' | 'retryMaxMs'>,
  outage: OutageLog,
  signal: AbortSignal,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const canRetry = attempt <= o.retryAttempts;
    try {
      await run(attempt, canRetry);
      outage.ended(entry, canRetry);
      return;
    } catch (err) {
      if (!canRetry || signal.aborted || !shouldRetry(err)) {
        outage.ended(entry, false);
        throw err;
      }
      outage.waiting(entry, attempt);
      await sleep(retryDelayMs(attempt, o.retryMaxMs), undefined, { signal }).catch(() => undefined);
      if (signal.aborted) return;
    }
  }
}

/**
 * A Redis step that must not be lost (marking an answered entry done): while it fails on a
 * connection error it waits for the connection to be ready again, up to `waitMs` in all, and runs
 * again. Thrown away, the entry would be replayed: its answer asked of the model a second time.
 */
export async function onceRedisAnswers<T>(client: Redis, step: () => Promise<T>, waitMs: number): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return await step();
    } catch (err) {
      if (!isConnectionError(err) || Date.now() >= deadline) throw err;
      await sleep(50);
      if (!(await redisReadyWithin(client, Math.max(1, deadline - Date.now())))) throw err;
    }
  }
}
