/**
 * The data port while the database is away: a read that fails on a connection error is tried
 * three times (a restart's "starting up" passes), a known tenant mapping is served for up to
 * TENANT_STALE_MAX_MS after it was last read (and no longer), other errors fail at once, and the
 * outage is one warn line (and one info line when it ends), not one per call.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { portOverTransport } from '../../src/data/rpc-port.js';
import type { Transport } from '../../src/data/transports/types.js';
import { captureLogs } from '../helpers/harness.js';

const TENANT = {
  id: '00000000-0000-4000-8000-000000000001',
  slug: 'acme',
  name: 'Acme',
  business_id: null,
  default_campaign_id: null,
  settings: {},
  is_default: false,
};

/** A transport whose database can be taken away: `down` calls fail as pg fails when the server is gone. */
function flakyTransport() {
  const calls: string[] = [];
  const state = { down: 0 as number, refuse: false };
  const transport: Transport = {
    kind: 'postgres',
    async rpc(fn) {
      calls.push(fn);
      if (state.refuse) throw Object.assign(new Error('relation does not exist'), { code: '42P01' });
      if (state.down > 0) {
        state.down--;
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      }
      return fn === 'resolve_tenant' ? [TENANT] : [];
    },
    async close() {},
  };
  return { transport, calls, state };
}

describe('the data port while the database is away', () => {
  it('serves the last known tenant mapping within TENANT_STALE_MAX_MS, then fails', async () => {
    const { log, logs } = captureLogs('debug');
    const { transport, calls, state } = flakyTransport();
    const port = portOverTransport(transport, log, {
      vectorsAvailable: false,
      embeddingDimensions: null,
      tenantCacheMs: 10,
      tenantStaleMs: 300,
    });
    expect((await port.resolveTenant('slack', 'T1'))?.slug).toBe('acme');
    await sleep(20);
    state.down = 1_000;
    // Past the 10 ms cache, the database is asked once and the known mapping served.
    calls.length = 0;
    expect((await port.resolveTenant('slack', 'T1'))?.slug).toBe('acme');
    expect(calls).toEqual(['resolve_tenant']);
    // A workspace never seen has nothing to fall back on: three tries, then the error.
    calls.length = 0;
    await expect(port.resolveTenant('slack', 'T2')).rejects.toThrow(/resolve_tenant failed/);
    expect(calls).toHaveLength(3);
    // Past the staleness bound: no longer served.
    await sleep(320);
    await expect(port.resolveTenant('slack', 'T1')).rejects.toThrow(/resolve_tenant failed/);
    // Back: read again, and the outage's end said once.
    state.down = 0;
    expect((await port.resolveTenant('slack', 'T1'))?.slug).toBe('acme');
    const warns = logs.lines.filter((l) => l.level === 40);
    expect(warns.map((l) => l.msg)).toEqual([
      'the database is unreachable: reads are retried, known tenants served from cache, turns wait (told once per outage)',
    ]);
    expect(logs.lines.filter((l) => l.msg === 'the database answers again')).toHaveLength(1);
  });

  it('retries a read that fails on a connection error (a restart passes), not one that fails otherwise', async () => {
    const { log } = captureLogs('silent');
    const { transport, calls, state } = flakyTransport();
    const port = portOverTransport(transport, log, { vectorsAvailable: false, embeddingDimensions: null });
    state.down = 2;
    await expect(port.resolveTenant('slack', 'T3')).resolves.toMatchObject({ slug: 'acme' });
    expect(calls).toEqual(['resolve_tenant', 'resolve_tenant', 'resolve_tenant']);
    calls.length = 0;
    state.refuse = true;
    await expect(port.resolveTenant('slack', 'T4')).rejects.toThrow(/not migrated/);
    expect(calls).toEqual(['resolve_tenant']);
  });
});
