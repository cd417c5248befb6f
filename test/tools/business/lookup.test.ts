import { describe, expect, it } from 'vitest';
import { newThreadState } from '../../../src/contract/thread-state.js';
import { DataError, type TenantDataPort } from '../../../src/contract/data.js';
import { createBusinessLookups, type LookupRequest } from '../../../src/tools/business/lookup.js';
import { captureLogs } from '../../helpers/harness.js';

/** The runner only reads state, tenant and log; no query reaches a database here. */
function context() {
  const { log, logs } = captureLogs();
  const tenant = { id: 't-1', name: 'T', settings: {}, isDefault: false };
  return { ctx: { tenant, state: newThreadState('k'), data: {} as TenantDataPort, log }, logs };
}

const request = <T>(load: () => Promise<T>, over: Partial<LookupRequest<T>> = {}): LookupRequest<T> => ({
  tool: 'get_faqs',
  fn: 'get_faqs',
  key: 'business:own:faqs:*',
  ttlMs: 1_000,
  size: () => 1,
  load,
  ...over,
});

describe('business lookups', () => {
  it('gives up at the deadline with a reason and a warning', async () => {
    const { ctx, logs } = context();
    const lookups = createBusinessLookups({ perCallMs: 30, turnBudgetMs: 60_000, maxCalls: 99 });
    const result = await lookups.run(
      ctx,
      0,
      request(() => new Promise<never>(() => {})),
    );
    expect(result).toEqual({ ok: false, reason: 'timeout' });
    expect(logs.lines.at(-1)).toMatchObject({
      level: 40,
      msg: 'business lookup failed',
      reason: 'timeout',
      fn: 'get_faqs',
    });
  });

  it('caches per thread until the TTL, and shares one in-flight load', async () => {
    const { ctx } = context();
    const lookups = createBusinessLookups({ perCallMs: 1_000, turnBudgetMs: 60_000, maxCalls: 99 });
    let loads = 0;
    const load = async () => {
      loads++;
      await new Promise((r) => setTimeout(r, 5));
      return ['row'];
    };
    const [a, b] = await Promise.all([lookups.run(ctx, 0, request(load)), lookups.run(ctx, 0, request(load))]);
    expect(a).toEqual({ ok: true, value: ['row'] });
    expect(b).toEqual(a);
    await lookups.run(ctx, 999, request(load));
    expect(loads).toBe(1);
    await lookups.run(ctx, 1_000, request(load));
    expect(loads).toBe(2);
  });

  it('does not cache failures, and names database failures by code', async () => {
    const { ctx } = context();
    const lookups = createBusinessLookups({ perCallMs: 1_000, turnBudgetMs: 60_000, maxCalls: 99 });
    const failing = async () => {
      throw new DataError('get_faqs', 'Database call get_faqs failed', { code: 'failed' });
    };
    expect(await lookups.run(ctx, 0, request(failing))).toEqual({ ok: false, reason: 'failed' });
    expect(ctx.state.cache).toEqual({});
    expect(
      await lookups.run(
        ctx,
        0,
        request(async () => ['ok']),
      ),
    ).toEqual({ ok: true, value: ['ok'] });
  });
});
