import { cacheGet, cacheSet, type ThreadState } from '../../agent/thread-state.js';
import { metrics } from '../../metrics.js';
import { DataError } from '../../data/port.js';
import type { Block } from '../../reply/model.js';
import type { OfferContext, ToolOutput } from '../tool.js';

/** What the user reads when a lookup fails, whichever way it failed. */
export const TROUBLE_MESSAGE = 'I’m having trouble pulling that up right now.';

export interface LookupSettings {
  /** The lookup gives up after this long, so the user still gets the safe message before the tool times out. */
  deadlineMs: number;
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
}

/**
 * Runs the business reads: per-thread cache with a TTL, one in-flight load per key (the six
 * tools' `offer` run together), a deadline, and failures turned into a reason for the logs
 * and a safe result. Never throws.
 */
export function createBusinessLookups(settings: LookupSettings): BusinessLookups {
  const inFlight = new WeakMap<ThreadState, Map<string, Promise<LookupResult<unknown>>>>();

  async function load<T>(ctx: OfferContext, now: number, req: LookupRequest<T>): Promise<LookupResult<T>> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), settings.deadlineMs);
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
      ctx.log.info({ tool: req.tool, fn: req.fn, latencyMs: latency(), rows: req.size(value), cached: false }, 'business lookup');
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
  const blocks: Block[] = [{ type: 'context', items: [`${TROUBLE_MESSAGE} Please try again in a minute.`] }];
  return {
    content: `Error: the ${what} lookup failed. Do not retry; tell the user: "${TROUBLE_MESSAGE}"`,
    summary: `Could not look up ${what}`,
    blocks,
    // Several failed lookups in one turn show one line, not one each.
    blocksKey: 'business:trouble',
  };
}
