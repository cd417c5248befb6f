import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import type { UserRole } from '../contract/turn.js';
import type { FailureDecision, FailureKind, UserFailures } from '../contract/tool.js';

/**
 * Rate limits, by rate-limiter-flexible: on Redis when REDIS_URL is set (every replica counts
 * against the same numbers), in memory otherwise.
 *
 *  - tool calls per user, per tool, per window, with a lower number for guests (seed 001's
 *    defaults below; TOOL_RATE_LIMITS overrides them);
 *  - messages per user per minute (USER_MESSAGES_PER_MINUTE): a flood limit on turns;
 *  - failed booking lookups per user per hour (BOOKING_LOOKUP_FAILURES_PER_HOUR): a guessing
 *    limit, counted by the tool on a miss and checked before the next try.
 *
 * A user is `tenant:platform:user`. Limited tool calls fail closed: when the store cannot be
 * reached the call is refused (and logged), never run uncounted. The message limit fails open
 * (logged): with its store down the inbox on the same Redis is down too, and refusing every
 * message would only hide that.
 */

export interface ToolLimit {
  guest: number;
  member: number;
  windowSeconds: number;
}

const FIVE_HOURS = 5 * 3600;
/** Seed 001's numbers per 5-hour window. */
export const DEFAULT_TOOL_LIMITS: Readonly<Record<string, ToolLimit>> = Object.freeze({
  generate_artifact: { guest: 5, member: 50, windowSeconds: FIVE_HOURS },
  generate_image: { guest: 10, member: 100, windowSeconds: FIVE_HOURS },
  web_search: { guest: 20, member: 200, windowSeconds: FIVE_HOURS },
});

const toolLimitSchema = z
  .object({
    guest: z.number().int().min(0),
    member: z.number().int().min(0),
    windowHours: z
      .number()
      .positive()
      .max(24 * 31)
      .optional(),
    windowSeconds: z
      .number()
      .int()
      .positive()
      .max(31 * 86_400)
      .optional(),
  })
  .strict()
  .nullable();

/**
 * TOOL_RATE_LIMITS: JSON merged over the defaults, e.g.
 * `{"web_search":{"guest":5,"member":50,"windowHours":1},"generate_image":null}` (null: no limit).
 * Throws a message naming the problem (the config step turns it into an exit-2 error).
 */
export function parseToolLimits(json: string | undefined): Record<string, ToolLimit> {
  const out: Record<string, ToolLimit> = Object.create(null) as Record<string, ToolLimit>;
  for (const [tool, limit] of Object.entries(DEFAULT_TOOL_LIMITS)) out[tool] = { ...limit };
  if (!json?.trim()) return out;
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new Error('not valid JSON; expected e.g. {"web_search":{"guest":20,"member":200,"windowHours":5}}');
  }
  const parsed = z.record(z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a tool name'), toolLimitSchema).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  for (const [tool, limit] of Object.entries(parsed.data)) {
    if (limit === null) {
      delete out[tool];
      continue;
    }
    const windowSeconds =
      limit.windowSeconds ??
      (limit.windowHours
        ? Math.round(limit.windowHours * 3600)
        : (DEFAULT_TOOL_LIMITS[tool]?.windowSeconds ?? FIVE_HOURS));
    out[tool] = { guest: limit.guest, member: limit.member, windowSeconds };
  }
  return out;
}

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
  /** A connected ioredis client with `enableOfflineQueue: false` (see {@link rateLimitRedisOptions}); memory without. */
  redis?: Redis;
  /** Key prefix on Redis (deployments sharing one Redis use different ones). */
  prefix?: string;
  log: Logger;
}

/** ioredis options for the limiter's client: commands fail at once while Redis is away (fail closed, no queueing). */
export const rateLimitRedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 2_000,
} as const;

export function createRateLimits(opts: RateLimitOptions): RateLimits {
  const toolLimits = opts.toolLimits ?? parseToolLimits(undefined);
  const prefix = opts.prefix ?? 'switchboard:rl';
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
        return { ok: true };
      } catch (err) {
        if (err instanceof RateLimiterRes) return refused(err);
        opts.log.error(
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
            if (!res || res.consumedPoints < points) return { ok: true };
            return {
              ok: false,
              reason: 'limited',
              limit: points,
              windowSeconds,
              resetAt: new Date(Date.now() + res.msBeforeNext).toISOString(),
            };
          } catch (err) {
            opts.log.error(
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
          } catch (err) {
            opts.log.error(
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
        return { ok: true };
      } catch (err) {
        if (err instanceof RateLimiterRes) {
          return {
            ok: false,
            limit: perMinute,
            remaining: 0,
            resetAt: new Date(Date.now() + err.msBeforeNext).toISOString(),
            retryAfterSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)),
            notify: err.consumedPoints === perMinute + 1,
          };
        }
        opts.log.warn(
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
 * The limits a process runs with: on Redis when REDIS_URL is set (a client of their own that
 * never queues a command while Redis is away), in memory otherwise.
 */
export async function rateLimitsFromConfig(
  config: {
    REDIS_URL?: string;
    TOOL_RATE_LIMITS?: Record<string, ToolLimit>;
    USER_MESSAGES_PER_MINUTE?: number;
    BOOKING_LOOKUP_FAILURES_PER_HOUR?: number;
  },
  log: Logger,
): Promise<{ limits: RateLimits; close(): Promise<void> }> {
  const base = {
    log,
    ...(config.TOOL_RATE_LIMITS ? { toolLimits: config.TOOL_RATE_LIMITS } : {}),
    ...(config.USER_MESSAGES_PER_MINUTE !== undefined ? { messagesPerMinute: config.USER_MESSAGES_PER_MINUTE } : {}),
    ...(config.BOOKING_LOOKUP_FAILURES_PER_HOUR !== undefined
      ? { bookingLookupFailuresPerHour: config.BOOKING_LOOKUP_FAILURES_PER_HOUR }
      : {}),
  };
  if (!config.REDIS_URL) return { limits: createRateLimits(base), close: async () => undefined };
  const { Redis } = await import('ioredis');
  const redis = new Redis(config.REDIS_URL, { ...rateLimitRedisOptions, lazyConnect: true });
  let warned = false;
  redis.on('error', (err: unknown) => {
    // ioredis reconnects by itself; limited tool calls are refused meanwhile (fail closed).
    if (!warned) log.warn({ err }, 'rate limit Redis connection error; limited tools are refused until it is back');
    warned = true;
  });
  redis.on('ready', () => (warned = false));
  await redis.connect();
  return {
    limits: createRateLimits({ ...base, redis }),
    async close() {
      redis.disconnect();
    },
  };
}
