import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '../telemetry/logger.js';
import { createOutageNotice } from '../telemetry/outage-notice.js';
import type { UserRole } from '../contract/turn.js';
import type { FailureDecision, FailureKind, UserFailures } from '../contract/tool.js';
import { createWrongTokens, type WrongTokens } from './wrong-tokens.js';
import { parseToolLimits, type ToolLimit } from '../config/tool-limits.js';

// TOOL_RATE_LIMITS is read with the rest of the configuration (src/config/tool-limits.ts).
export { DEFAULT_TOOL_LIMITS, parseToolLimits, type ToolLimit } from '../config/tool-limits.js';

/**
 * Rate limits, by rate-limiter-flexible: on Redis when REDIS_URL is set (every replica counts
 * against the same numbers), in memory otherwise.
 *
 *  - tool calls per user, per tool, per window, with a lower number for guests (the
 *    defaults, src/config/tool-limits.ts; TOOL_RATE_LIMITS overrides them);
 *  - messages per user per minute (USER_MESSAGES_PER_MINUTE): a flood limit on turns;
 *  - failed booking lookups per user per hour (BOOKING_LOOKUP_FAILURES_PER_HOUR): a guessing
 *    limit, counted by the tool on a miss and checked before the next try.
 *
 * A user is `tenant:platform:user`. Limited tool calls fail closed: when the store cannot be
 * reached the call is refused (and logged: each kind of failure once per outage at warn, repeats
 * at debug, one info line when the store answers again), never run uncounted. The message limit fails open
 * (logged): with its store down the inbox on the same Redis is down too, and refusing every
 * message would only hide that.
 */

export interface LimitSubject {
  tenantId: string;
  platform: string;
  userId: string;
  role: UserRole;
}

export type ToolDecision =
  | { ok: true }
  | {
      ok: false;
      reason: 'limited';
      limit: number;
      remaining: 0;
      resetAt: string;
      windowSeconds: number;
      role: UserRole;
    }
  | { ok: false; reason: 'unavailable' };

export type MessageDecision =
  | { ok: true }
  | { ok: false; limit: number; remaining: 0; resetAt: string; retryAfterSeconds: number; notify: boolean };

export interface RateLimits {
  readonly store: 'redis' | 'memory';
  /** Counts one call of `tool`; tools without a limit are always allowed (and not counted). */
  tool(subject: LimitSubject, tool: string): Promise<ToolDecision>;
  /** Counts one message; `notify` is true only for the first refusal in a window (one notice per flood). */
  message(subject: Omit<LimitSubject, 'role'>): Promise<MessageDecision>;
  /** The user's failed attempts of each kind (see {@link UserFailures}), bound to `subject`. */
  failures(subject: Omit<LimitSubject, 'role'>): UserFailures;
}

/** A limit on failures: `points` failures per `windowSeconds`; 0 points turns it off. */
export interface FailureLimit {
  points: number;
  windowSeconds: number;
}

export interface RateLimitOptions {
  toolLimits?: Record<string, ToolLimit>;
  /** 0 turns the message limit off. */
  messagesPerMinute?: number;
  /** Failed booking lookups per user per hour (default 5); 0 turns the limit off. */
  bookingLookupFailuresPerHour?: number;
  /** A connected ioredis `command` connection (src/net/redis-connection.ts: no offline queue, so fail closed at once); memory without. */
  redis?: Redis;
  /** Key prefix on Redis (deployments sharing one Redis use different ones). */
  prefix?: string;
  log: Logger;
}

export function createRateLimits(opts: RateLimitOptions): RateLimits {
  const toolLimits = opts.toolLimits ?? parseToolLimits(undefined);
  const prefix = opts.prefix ?? 'switchboard:rl';
  // A store outage is told once per kind of failure, not once a call, and its end once.
  const outage = createOutageNotice(opts.log, 'rate limit store answers again');
  const make = (keyPrefix: string, points: number, duration: number): RateLimiterAbstract =>
    opts.redis
      ? new RateLimiterRedis({
          storeClient: opts.redis,
          keyPrefix: `${prefix}:${keyPrefix}`,
          points,
          duration,
          rejectIfRedisNotReady: true,
        })
      : new RateLimiterMemory({ keyPrefix, points, duration });
  const toolLimiters = new Map<string, RateLimiterAbstract>();
  const toolLimiter = (tool: string, role: UserRole, limit: ToolLimit) => {
    const id = `tool:${tool}:${role}`;
    let limiter = toolLimiters.get(id);
    if (!limiter) toolLimiters.set(id, (limiter = make(id, limit[role], limit.windowSeconds)));
    return limiter;
  };
  const perMinute = opts.messagesPerMinute ?? 20;
  const messages = perMinute > 0 ? make('msg', perMinute, 60) : undefined;
  const keyOf = (s: Omit<LimitSubject, 'role'>) => `${s.tenantId}:${s.platform}:${s.userId}`;
  const failureLimits: Record<FailureKind, FailureLimit> = {
    booking_lookup: { points: opts.bookingLookupFailuresPerHour ?? 5, windowSeconds: 3600 },
  };
  const failureLimiters = new Map<FailureKind, RateLimiterAbstract>();
  const failureLimiter = (kind: FailureKind) => {
    let limiter = failureLimiters.get(kind);
    const { points, windowSeconds } = failureLimits[kind];
    if (!limiter) failureLimiters.set(kind, (limiter = make(`fail:${kind}`, points, windowSeconds)));
    return limiter;
  };

  return {
    store: opts.redis ? 'redis' : 'memory',
    async tool(subject, tool) {
      const limit = Object.hasOwn(toolLimits, tool) ? toolLimits[tool] : undefined;
      if (!limit) return { ok: true };
      const points = limit[subject.role];
      const refused = (res: RateLimiterRes) =>
        ({
          ok: false,
          reason: 'limited',
          limit: points,
          remaining: 0,
          resetAt: new Date(Date.now() + res.msBeforeNext).toISOString(),
          windowSeconds: limit.windowSeconds,
          role: subject.role,
        }) as const;
      if (points === 0) return refused(new RateLimiterRes(0, limit.windowSeconds * 1000));
      try {
        await toolLimiter(tool, subject.role, limit).consume(keyOf(subject));
        outage.ok();
        return { ok: true };
      } catch (err) {
        if (err instanceof RateLimiterRes) {
          outage.ok();
          return refused(err);
        }
        outage.failed(
          { err, tool, tenant: subject.tenantId, store: opts.redis ? 'redis' : 'memory' },
          'rate limit store unavailable: limited tool call refused',
        );
        return { ok: false, reason: 'unavailable' };
      }
    },
    failures(subject) {
      const key = keyOf(subject);
      return {
        async check(kind): Promise<FailureDecision> {
          const { points, windowSeconds } = failureLimits[kind];
          if (points <= 0) return { ok: true };
          try {
            // Reads the count without adding to it: only a failure counts.
            const res = await failureLimiter(kind).get(key);
            outage.ok();
            if (!res || res.consumedPoints < points) return { ok: true };
            return {
              ok: false,
              reason: 'limited',
              limit: points,
              windowSeconds,
              resetAt: new Date(Date.now() + res.msBeforeNext).toISOString(),
            };
          } catch (err) {
            outage.failed(
              { err, kind, tenant: subject.tenantId, store: opts.redis ? 'redis' : 'memory' },
              'rate limit store unavailable: failure limit not checked, the attempt is refused',
            );
            return { ok: false, reason: 'unavailable' };
          }
        },
        async record(kind) {
          if (failureLimits[kind].points <= 0) return;
          try {
            // penalty() adds a point without refusing: the check before the next try decides.
            await failureLimiter(kind).penalty(key, 1);
            outage.ok();
          } catch (err) {
            outage.failed(
              { err, kind, tenant: subject.tenantId, store: opts.redis ? 'redis' : 'memory' },
              'rate limit store unavailable: a failure was not counted',
            );
          }
        },
      };
    },
    async message(subject) {
      if (!messages) return { ok: true };
      try {
        await messages.consume(keyOf(subject));
        outage.ok();
        return { ok: true };
      } catch (err) {
        if (err instanceof RateLimiterRes) {
          outage.ok();
          return {
            ok: false,
            limit: perMinute,
            remaining: 0,
            resetAt: new Date(Date.now() + err.msBeforeNext).toISOString(),
            retryAfterSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)),
            notify: err.consumedPoints === perMinute + 1,
          };
        }
        outage.failed(
          { err, tenant: subject.tenantId },
          'message rate limit not checked: its store is unavailable; the message is answered',
        );
        return { ok: true };
      }
    },
  };
}

/** "5 hours", "1 hour", "30 minutes": a window in words for messages. */
export function windowWords(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} hour${seconds === 3600 ? '' : 's'}`;
  if (seconds % 60 === 0) return `${seconds / 60} minute${seconds === 60 ? '' : 's'}`;
  return `${seconds} seconds`;
}

/**
 * The limits a process runs with: on the given Redis connection (the thread state's, which never
 * queues a command while Redis is away and logs its outages: see src/state/redis-kv.ts), in
 * memory without one. The connection's owner closes it.
 */
export function rateLimitsFromConfig(
  config: {
    TOOL_RATE_LIMITS?: Record<string, ToolLimit>;
    USER_MESSAGES_PER_MINUTE?: number;
    BOOKING_LOOKUP_FAILURES_PER_HOUR?: number;
  },
  log: Logger,
  redis: Redis | undefined,
): { limits: RateLimits; wrongTokens: WrongTokens } {
  const base = {
    log,
    ...(config.TOOL_RATE_LIMITS ? { toolLimits: config.TOOL_RATE_LIMITS } : {}),
    ...(config.USER_MESSAGES_PER_MINUTE !== undefined ? { messagesPerMinute: config.USER_MESSAGES_PER_MINUTE } : {}),
    ...(config.BOOKING_LOOKUP_FAILURES_PER_HOUR !== undefined
      ? { bookingLookupFailuresPerHour: config.BOOKING_LOOKUP_FAILURES_PER_HOUR }
      : {}),
    ...(redis ? { redis } : {}),
  };
  return {
    limits: createRateLimits(base),
    // ADMIN_TOKEN guesses (console sign-in and admin API), counted on the same Redis.
    wrongTokens: createWrongTokens({ log, ...(redis ? { redis } : {}) }),
  };
}
