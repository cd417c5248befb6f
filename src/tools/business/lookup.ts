import { cacheGet, cacheSet, type ThreadState } from '../../contract/thread-state.js';
import { metrics } from '../../telemetry/metrics.js';
import { DataError } from '../../contract/data.js';
import type { Block } from '../../reply/model.js';
import type { OfferContext, ToolContext, ToolOutput } from '../../contract/tool.js';

/** What the user reads when a lookup fails, whichever way it failed (docs/business.md: the fallback). */
export const TROUBLE_MESSAGE = 'I’m having trouble pulling that up right now. Would you like me to take a message?';

/** Seed 004's router limits, per user turn. */
export interface LookupSettings {
  /** One lookup gives up after this long (200–400 ms in the seed). */
  perCallMs: number;
  /** A turn's business lookups end this long after its first one started (1 s, wall clock); later ones fail at once. */
  turnBudgetMs: number;
  /** Business tool calls per turn (2); further calls are refused with a fixable error. */
  maxCalls: number;
}

/** What one turn has used of its business budget (keyed by the turn's thread state, checked by message id). */
interface TurnUse {
  messageId: string;
  calls: number;
  /** When its first business lookup started (performance.now()): the budget is wall-clock time from there. */
  startedAt?: number;
}

export type LookupResult<T> = { ok: true; value: T } | { ok: false; reason: string };

export interface LookupRequest<T> {
  /** The tool (or `offer`) asking, for the logs. */
  tool: string;
  /** The SQL function, for the logs. */
  fn: string;
  /** Per-thread cache key; the thread key already names the tenant. */
  key: string;
  ttlMs: number;
  load: () => Promise<T>;
  /** Rows in the result, for the logs. */
  size: (value: T) => number;
}

export interface BusinessLookups {
  run<T>(ctx: OfferContext, now: number, request: LookupRequest<T>): Promise<LookupResult<T>>;
  /** Counts one business tool call of this turn; over `maxCalls` it is refused with a message for the model. */
  begin(ctx: ToolContext): { ok: true } | { ok: false; error: string };
  readonly settings: LookupSettings;
}

/**
 * Runs the business reads: per-thread cache with a TTL, one in-flight load per key (the six
 * tools' `offer` run together), a deadline, and failures turned into a reason for the logs
 * and a safe result. Never throws.
 */
export function createBusinessLookups(settings: LookupSettings): BusinessLookups {
  const inFlight = new WeakMap<ThreadState, Map<string, Promise<LookupResult<unknown>>>>();
  const turns = new WeakMap<ThreadState, TurnUse>();
  /** The turn's use, when `ctx` is a tool call's (offers before the step do not count). */
  const useOf = (ctx: OfferContext): TurnUse | undefined => {
    const messageId = (ctx as Partial<ToolContext>).message?.messageId;
    if (!messageId) return undefined;
    let use = turns.get(ctx.state);
    if (!use || use.messageId !== messageId) turns.set(ctx.state, (use = { messageId, calls: 0 }));
    return use;
  };

  async function load<T>(ctx: OfferContext, now: number, req: LookupRequest<T>): Promise<LookupResult<T>> {
    const use = useOf(ctx);
    if (use) use.startedAt ??= performance.now();
    const remaining = use ? settings.turnBudgetMs - (performance.now() - (use.startedAt ?? 0)) : settings.perCallMs;
    if (remaining <= 0) {
      metrics.businessLookups.inc({ tool: req.tool, result: 'fallback' });
      ctx.log.warn(
        { tool: req.tool, fn: req.fn, reason: 'turn_budget', budgetMs: settings.turnBudgetMs },
        'business lookup failed',
      );
      return { ok: false, reason: 'turn_budget' };
    }
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), Math.min(settings.perCallMs, remaining));
    });
    try {
      const value = await Promise.race([req.load(), deadline]);
      if (value === 'timeout') {
        metrics.businessLookups.inc({ tool: req.tool, result: 'fallback' });
        ctx.log.warn({ tool: req.tool, fn: req.fn, latencyMs: latency(), reason: 'timeout' }, 'business lookup failed');
        return { ok: false, reason: 'timeout' };
      }
      cacheSet(ctx.state, req.key, value, req.ttlMs, now);
      metrics.businessLookups.inc({ tool: req.tool, result: 'load' });
      ctx.log.debug(
        { tool: req.tool, fn: req.fn, latencyMs: latency(), rows: req.size(value), cached: false },
        'business lookup',
      );
      return { ok: true, value };
    } catch (err) {
      const reason = err instanceof DataError ? err.code : 'error';
      metrics.businessLookups.inc({ tool: req.tool, result: 'fallback' });
      ctx.log.warn({ tool: req.tool, fn: req.fn, latencyMs: latency(), reason, err }, 'business lookup failed');
      return { ok: false, reason };
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    settings,
    begin(ctx) {
      const use = useOf(ctx);
      if (!use) return { ok: true };
      if (use.calls >= settings.maxCalls) {
        return {
          ok: false,
          error: `At most ${settings.maxCalls} business lookups per message. Answer with what you have; if something is still missing, say so and offer to take a message (take_message).`,
        };
      }
      use.calls++;
      return { ok: true };
    },
    async run<T>(ctx: OfferContext, now: number, req: LookupRequest<T>): Promise<LookupResult<T>> {
      const hit = cacheGet<T>(ctx.state, req.key, now);
      if (hit !== undefined) {
        metrics.businessLookups.inc({ tool: req.tool, result: 'hit' });
        ctx.log.debug({ tool: req.tool, fn: req.fn, rows: req.size(hit), cached: true }, 'business lookup');
        return { ok: true, value: hit };
      }
      const pending = inFlight.get(ctx.state) ?? new Map<string, Promise<LookupResult<unknown>>>();
      inFlight.set(ctx.state, pending);
      const running = pending.get(req.key) as Promise<LookupResult<T>> | undefined;
      if (running) return running;
      const started = load(ctx, now, req);
      pending.set(req.key, started);
      try {
        return await started;
      } finally {
        pending.delete(req.key);
      }
    },
  };
}

/** The tool result after a failed lookup: a short error for the model, a clear line for the user. */
export function troubleOutput(what: string): ToolOutput {
  const blocks: Block[] = [{ type: 'context', items: [TROUBLE_MESSAGE] }];
  return {
    content: `Error: the ${what} lookup failed. Do not retry; tell the user: "${TROUBLE_MESSAGE}" If they want to, take the message with take_message.`,
    summary: `Could not look up ${what}`,
    blocks,
    // Several failed lookups in one turn show one line, not one each.
    blocksKey: 'business:trouble',
  };
}
