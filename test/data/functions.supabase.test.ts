import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDataPort, type AdminDataPort } from '../../src/data/index.js';
import * as rows from '../../src/data/rows.js';
import { silentLogger } from '../../src/telemetry/logger.js';
import { startFakePostgrest, type FakePostgrest } from '../fakes/postgrest.js';
import {
  noticeWithoutPostgres,
  openPgliteTestPort,
  openPostgresTestPort,
  testConfig,
  TEST_DATABASE_URL,
} from '../helpers/db.js';
import { defineFunctionSuite } from './suite.js';

/**
 * The Supabase transport, driven by the real @supabase/supabase-js against a loopback
 * PostgREST-compatible endpoint that runs each called function on a real database
 * (PGlite always; Postgres too when TEST_DATABASE_URL is set).
 */

const KEY = 'test-service-role-key';

noticeWithoutPostgres('the Supabase suite');

/** Opens a backing database, a fake PostgREST over it and a Supabase port pointed at it. */
async function openOver(backing: AdminDataPort, extraClose: () => Promise<void> = async () => {}) {
  const sql = backing.transport.sql;
  if (!sql) throw new Error('backing transport has no SQL client');
  const fake = await startFakePostgrest({ query: (text, params) => sql.query(text, params), serviceKey: KEY });
  const port = await openDataPort(
    testConfig({ SUPABASE_URL: fake.url, SUPABASE_SERVICE_ROLE_KEY: KEY }),
    silentLogger(),
    {
      tenantCacheMs: 0,
    },
  );
  return {
    port,
    fake,
    close: async () => {
      await port.close();
      await fake.close();
      await backing.close();
      await extraClose();
    },
  };
}

defineFunctionSuite('SQL functions through supabase-js → PostgREST → PGlite', {
  async open() {
    return openOver(await openPgliteTestPort());
  },
});

describe.skipIf(!TEST_DATABASE_URL)('Postgres behind PostgREST', () => {
  defineFunctionSuite('SQL functions through supabase-js → PostgREST → Postgres', {
    async open() {
      const { port, db } = await openPostgresTestPort();
      return openOver(port, () => db.drop());
    },
  });
});

describe('what supabase-js sends', () => {
  let ctx: Awaited<ReturnType<typeof openOver>>;
  let fake: FakePostgrest;

  beforeAll(async () => {
    ctx = await openOver(await openPgliteTestPort({ seedDemo: false }));
    fake = ctx.fake;
  });
  afterAll(() => ctx.close());

  it('posts p_-named arguments to /rest/v1/rpc/<fn> with the service key, omitting undefined ones', async () => {
    const tenant = await ctx.port.defaultTenant();
    fake.requests.length = 0;
    await ctx.port.call(
      'search_campaigns_by_text',
      { tenant_id: tenant.id, query: '"fixed price" -wind', limit: 5, channels: undefined, has_offer: true },
      rows.textCampaignRow,
    );
    expect(fake.requests).toHaveLength(1);
    const [req] = fake.requests;
    expect(req?.method).toBe('POST');
    expect(req?.path).toBe('/rest/v1/rpc/search_campaigns_by_text');
    expect(req?.headers.apikey).toBe(KEY);
    expect(req?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req?.headers['content-profile']).toBe('public');
    expect(req?.body).toEqual({
      p_tenant_id: tenant.id,
      p_query: '"fixed price" -wind',
      p_limit: 5,
      p_has_offer: true,
    });
  });

  it('maps PostgREST errors to DataError codes', async () => {
    const tenant = await ctx.port.defaultTenant();
    const err = await ctx.port
      .call('search_campaigns', { tenant_id: tenant.id, query_embedding: [1, 2, 3] }, rows.semanticCampaignRow)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'DataError', code: 'invalid_input', fn: 'search_campaigns' });
  });

  it('refuses a wrong service key at startup with a clear message', async () => {
    const bad = openDataPort(
      testConfig({ SUPABASE_URL: fake.url, SUPABASE_SERVICE_ROLE_KEY: 'wrong' }),
      silentLogger(),
    );
    await expect(bad).rejects.toThrow(/SUPABASE_URL: cannot query the database .*Invalid API key/);
  });
});
