import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { hashEmbedder } from '../../bench/generate-campaigns.js';
import { captureLogs } from '../helpers/harness.js';
import { ConfigError, parseConfig } from '../../src/config/index.js';
import type { ReadFunctionName } from '../../src/contract/catalogue.js';
import {
  createDataPort,
  dataSourceKind,
  openDataPort,
  tenantFor,
  type AdminDataPort,
  type DataError,
} from '../../src/data/index.js';
import { importRows } from '../../src/data/import/run.js';
import * as rows from '../../src/data/rows.js';
import { classify } from '../../src/data/rpc-port.js';
import { createLogger, silentLogger } from '../../src/telemetry/logger.js';
import {
  createTestDatabase,
  migratePostgres,
  noticeWithoutPostgres,
  openPgliteTestPort,
  testConfig,
  TEST_DATABASE_URL,
  TEST_DIMENSIONS,
} from '../helpers/db.js';

noticeWithoutPostgres('the "not migrated" checks');

describe('createDataPort with nothing configured', () => {
  it('comes up on the embedded database with the demo data, and embeds it when it can', async () => {
    const config = testConfig({ EMBEDDING_MODEL: 'test-embedder' });
    expect(dataSourceKind(config)).toBe('pglite');
    const port = await createDataPort(config, silentLogger(), { embed: hashEmbedder(TEST_DIMENSIONS) });
    try {
      expect(port.kind).toBe('pglite');
      expect(port.vectorsAvailable).toBe(true);
      const tenant = await port.defaultTenant();
      expect(tenant.name).toBe('Demo marketing team');
      expect((await port.resolveTenant('console', 'harbourside'))?.name).toBe('Harbourside Physio');
      expect(await port.call('embedding_status', { tenant_id: tenant.id }, rows.embeddingStatusRow)).toEqual([
        { campaigns: 300, embedded: 300 },
      ]);
    } finally {
      await port.close();
    }
  });

  describe('persisted under PGLITE_DIR', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'sb-pglite-'));
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    it('migrates and seeds on first start only, keeps data, and checks the embedding dimension', async () => {
      const env = { PGLITE_MEMORY: '', PGLITE_DIR: join(dir, 'db') };
      const first = await openDataPort(testConfig(env), silentLogger());
      const tenant = await first.defaultTenant();
      // One process at a time: a second opener is refused, not allowed to corrupt the files.
      await expect(openDataPort(testConfig(env), silentLogger())).rejects.toThrow(
        /is in use by process \d+; stop it first/,
      );
      // A later start must not seed again: it would undo this rename.
      await importRows(first, 'tenants', tenant.id, [{ slug: 'default', name: 'Renamed' }]);
      await first.close();

      const second = await openDataPort(testConfig(env), silentLogger(), { tenantCacheMs: 0 });
      expect(
        (await second.call('embedding_status', { tenant_id: tenant.id }, rows.embeddingStatusRow))[0]?.campaigns,
      ).toBe(300);
      expect(await second.defaultTenant()).toMatchObject({ id: tenant.id, name: 'Renamed' });
      await second.close();

      const mismatch = openDataPort(
        testConfig({ ...env, EMBEDDING_MODEL: 'm', EMBEDDING_DIMENSIONS: '128' }),
        silentLogger(),
      );
      await expect(mismatch).rejects.toThrow(
        /EMBEDDING_DIMENSIONS: is 128 but the database stores 64-dimensional embeddings/,
      );
    });

    it('starts after a crash that left a pid file naming this very pid (a container is always PID 1)', async () => {
      const env = { PGLITE_MEMORY: '', PGLITE_DIR: join(dir, 'crashed') };
      const first = await openDataPort(testConfig(env), silentLogger());
      await first.close();
      // What a crash leaves behind: the lock file, holding the pid the next start will have too.
      await writeFile(`${join(dir, 'crashed')}.pid`, String(process.pid));
      const restarted = await openDataPort(testConfig(env), silentLogger());
      try {
        expect((await restarted.defaultTenant()).isDefault).toBe(true);
        // While it runs, a second opener in the same process is still refused.
        await expect(openDataPort(testConfig(env), silentLogger())).rejects.toThrow(
          /is in use by process \d+; stop it first/,
        );
      } finally {
        await restarted.close();
      }
    });
  });
});

describe('the port guards every call', () => {
  let port: AdminDataPort;
  let tenantId: string;
  const lines: string[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    port = await openDataPort(testConfig(), createLogger('debug', sink), { seedDemo: false });
    tenantId = (await port.defaultTenant()).id;
  });
  afterAll(() => port.close());

  const error = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: unknown) => e as DataError,
    );

  it('only calls catalogued read functions', async () => {
    const unknown = await error(
      port.call('pg_sleep' as ReadFunctionName, { tenant_id: tenantId } as never, rows.campaignRow),
    );
    expect(unknown).toMatchObject({ name: 'DataError', code: 'invalid_input' });
    const admin = await error(port.call('import_commit' as ReadFunctionName, {} as never, rows.campaignRow));
    expect(admin).toMatchObject({ code: 'invalid_input' });
  });

  it('checks argument names and types before any SQL runs', async () => {
    const cases: [ReadFunctionName, Record<string, unknown>, RegExp][] = [
      ['filter_campaigns', { tenant_id: 'not-a-uuid' }, /tenant_id.*uuid/],
      ['filter_campaigns', { tenant_id: tenantId, channel: ['x'] }, /unknown argument "channel"/],
      ['filter_campaigns', { tenant_id: tenantId, limit: 'ten' }, /limit.*integer/],
      ['filter_campaigns', { tenant_id: tenantId, date_from: '1 Oct' }, /date_from.*YYYY-MM-DD/],
      ['search_campaigns_by_text', { tenant_id: tenantId }, /missing argument "query"/],
      ['get_campaigns', { tenant_id: tenantId, ids: ['1; drop table campaigns'] }, /uuids/],
    ];
    for (const [fn, args, message] of cases) {
      const e = await error(port.call(fn, args as never, rows.campaignRow));
      expect(e, JSON.stringify(args)).toMatchObject({ code: 'invalid_input' });
      expect(e?.message).toMatch(message);
    }
  });

  it('validates rows and surfaces database failures as DataError, logged with the function name', async () => {
    await port.admin(
      'import_stage',
      { tenant_id: tenantId, import_id: tenantId, table: 'faqs', seq: 0, rows: [] },
      z.object({ staged: z.number() }),
    );
    const failed = await error(
      port.admin(
        'import_stage',
        { tenant_id: tenantId, import_id: tenantId, table: 'faqs', seq: 0, rows: [] },
        z.object({ staged: z.number() }),
      ),
    );
    expect(failed).toMatchObject({ name: 'DataError', fn: 'import_stage', code: 'invalid_input' });
    expect(failed?.message).toBe('Database call import_stage rejected its input (23505)');
    expect(lines.some((l) => l.includes('"fn":"import_stage"') && l.includes('data call failed'))).toBe(true);
    const badRows = await error(port.call('default_tenant', {}, z.object({ id: z.number() })));
    expect(badRows).toMatchObject({ code: 'failed', fn: 'default_tenant' });
    expect(badRows?.message).toMatch(/does not match its schema \(id:/);
  });

  it('maps SQLSTATEs to what a caller can act on', () => {
    expect(classify('0A000')).toBe('unavailable');
    expect(classify('SB001')).toBe('invalid_input');
    expect(classify('22P02')).toBe('invalid_input');
    expect(classify('42883')).toBe('not_migrated');
    expect(classify('PGRST202')).toBe('not_migrated');
    expect(classify('57014')).toBe('failed');
    expect(classify(undefined)).toBe('failed');
  });
});

describe('tenants', () => {
  it('serves unmapped workspaces from the default tenant unless TENANT_MODE=strict', async () => {
    const port = await openPgliteTestPort({ seedDemo: false });
    try {
      const dflt = await port.defaultTenant();
      expect((await tenantFor(port, 'open', 'slack', 'T-NEW'))?.id).toBe(dflt.id);
      expect(await tenantFor(port, 'strict', 'slack', 'T-NEW')).toBeNull();
      expect((await tenantFor(port, 'strict', 'console', 'default'))?.id).toBe(dflt.id);
      expect((await tenantFor(port, 'strict', 'http', 'default'))?.id).toBe(dflt.id);
      // Discord DMs carry the workspace 'default': the default tenant, even in strict mode.
      expect((await tenantFor(port, 'strict', 'discord', 'default'))?.id).toBe(dflt.id);
    } finally {
      await port.close();
    }
  });
});

describe('configuration errors', () => {
  it('names both variables when DATABASE_URL and SUPABASE_URL are set', () => {
    const both = () =>
      parseConfig({
        DATABASE_URL: 'postgres://x/y',
        SUPABASE_URL: 'https://p.supabase.co',
        SUPABASE_SERVICE_ROLE_KEY: 'k',
      });
    expect(both).toThrow(ConfigError);
    expect(both).toThrow(/DATABASE_URL and SUPABASE_URL are both set/);
  });

  it('says when Postgres cannot be reached', async () => {
    const port = openDataPort(testConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nothing' }), silentLogger());
    await expect(port).rejects.toThrow(/DATABASE_URL: cannot query the database at 127\.0\.0\.1:1/);
  });

  describe.skipIf(!TEST_DATABASE_URL)('on Postgres', () => {
    it('tells the user to run npm run db:migrate on an empty or outdated database', async () => {
      const db = await createTestDatabase();
      try {
        const config = testConfig({ DATABASE_URL: db.url });
        await expect(openDataPort(config, silentLogger())).rejects.toThrow(
          /has no Switchboard schema\. Run `npm run db:migrate`/,
        );
        await migratePostgres(db.url);
        const c = new pg.Client({ connectionString: db.url });
        await c.connect();
        await c.query(
          `create or replace function schema_info() returns table (version text, vectors_available boolean, embedding_dimensions integer) language sql as $$ select '20200101000000', false, null::integer $$`,
        );
        await c.end();
        await expect(openDataPort(config, silentLogger())).rejects.toThrow(
          /schema is at 20200101000000 but .* needs \d{14}\. Run `npm run db:migrate`/,
        );
      } finally {
        await db.drop();
      }
    });
  });
});

describe('an empty database', () => {
  it('logs a hint saying how to fill it, once, when it has no campaigns', async () => {
    const { log, logs } = captureLogs();
    const port = await openDataPort(testConfig(), log, { seedDemo: false });
    try {
      expect(logs.lines.filter((l) => String(l.msg).startsWith('the database has no campaigns yet'))).toHaveLength(1);
      expect(logs.text()).toContain('npm run db:migrate -- --seed-demo');
    } finally {
      await port.close();
    }
  });
});
