import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '../telemetry/logger.js';

/**
 * Guessing ADMIN_TOKEN stays slow, wherever it is guessed: the console's sign-in and the admin
 * API's bearer count against one limit per client address, on Redis when REDIS_URL is set (so
 * every replica counts against the same number) and in memory otherwise (rate-limiter-flexible,
 * as for the other limits: rate-limits.ts).
 *
 *  - Every wrong token waits `pauseMs` before its answer, one after another in this process
 *    (a guesser gets about one try per pause here however many connections it opens).
 *  - After `points` wrong tokens from one address within `windowSeconds`, that address is
 *    refused (429 with Retry-After) until the window ends, even with the right token: a guesser
 *    cannot tell a right token from a wrong one while refused.
 *
 * The store away (Redis down): a wrong token is still refused and still waits its pause; the
 * right token is let in (logged), so operators are not locked out of the console in an outage.
 */

export type WrongTokenDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

export interface WrongTokens {
  /** Wrong tokens an address may send per window before it is refused. */
  readonly points: number;
  readonly windowSeconds: number;
  /** Counts a wrong token from `address` and waits the pause; not ok once the address is past the limit. */
  wrong(address: string | undefined): Promise<WrongTokenDecision>;
  /** Whether `address` may be let in with the right token now (not ok while it is refused). */
  admit(address: string | undefined): Promise<WrongTokenDecision>;
}

export interface WrongTokenOptions {
  log: Logger;
  /** A connected ioredis `command` connection (src/net/redis-connection.ts), shared with the rate limits; memory without. */
  redis?: Redis;
  /** Key prefix on Redis. */
  prefix?: string;
  /** Default 5 wrong tokens… */
  points?: number;
  /** …per 15 minutes. */
  windowSeconds?: number;
  /** The wait before a wrong token's answer (default 750 ms). */
  pauseMs?: number;
}

export function createWrongTokens(opts: WrongTokenOptions): WrongTokens {
  const points = opts.points ?? 5;
  const windowSeconds = opts.windowSeconds ?? 15 * 60;
  const pauseMs = opts.pauseMs ?? 750;
  const limiter: RateLimiterAbstract = opts.redis
    ? new RateLimiterRedis({
        storeClient: opts.redis,
        keyPrefix: `${opts.prefix ?? 'switchboard:rl'}:wrong-token`,
        points,
        duration: windowSeconds,
        rejectIfRedisNotReady: true,
      })
    : new RateLimiterMemory({ keyPrefix: 'wrong-token', points, duration: windowSeconds });
  const store = opts.redis ? 'redis' : 'memory';
  // A request whose address is unknown (TRUST_PROXY hops missing) counts with every other such request.
  const keyOf = (address: string | undefined) => address ?? 'unknown';
  let line: Promise<void> = Promise.resolve();
  const pause = () => (line = line.then(() => sleep(pauseMs)));
  const refused = (res: RateLimiterRes): WrongTokenDecision => ({
    ok: false,
    retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  });

  return {
    points,
    windowSeconds,
    async wrong(address) {
      try {
        // consume() counts atomically: of many guesses at once, only `points` get a 401.
        await limiter.consume(keyOf(address));
      } catch (err) {
        if (err instanceof RateLimiterRes) return refused(err);
        opts.log.error({ err, store }, 'wrong-token limit store unavailable: the wrong token is refused uncounted');
      }
      await pause();
      return { ok: true };
    },
    async admit(address) {
      try {
        const res = await limiter.get(keyOf(address));
        return res && res.consumedPoints >= points ? refused(res) : { ok: true };
      } catch (err) {
        opts.log.error({ err, store }, 'wrong-token limit store unavailable: the right token is let in unchecked');
        return { ok: true };
      }
    },
  };
}
