import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_FUNCTIONS, ALL_FUNCTIONS, READ_FUNCTIONS, sqlType } from '../../src/contract/catalogue.js';
import { loadMigrations, migrate, SCHEMA_VERSION } from '../../src/data/migrate.js';
import { ROW_SCHEMAS } from '../../src/data/rows.js';
import { openPglite } from '../../src/data/transports/pglite.js';
import { openPostgres } from '../../src/data/transports/postgres.js';
import type { SqlClient } from '../../src/data/transports/types.js';
import {
  createTestDatabase,
  noticeWithoutPostgres,
  TEST_DATABASE_URL,
  TEST_DIMENSIONS,
  type TestDatabase,
} from '../helpers/db.js';

noticeWithoutPostgres('the migration checks');

/** Every non-extension function in `public`, with its input arguments. */
const PROCS = `
  select p.proname as name, p.pronargdefaults::int as ndefaults,
         coalesce((select array_agg(x.name order by x.ord) from unnest(p.proargnames, coalesce(p.proargmodes::text[], array_fill('i'::text, array[p.pronargs::int]))) with ordinality x(name, mode, ord) where x.mode in ('i', 'b')), '{}') as args,
         coalesce((select array_agg(format_type(t, null) order by o) from unnest(p.proargtypes::oid[]) with ordinality u(t, o)), '{}') as types
  from pg_proc p join pg_namespace n on n.oid = p.pronamespace
  where n.nspname = 'public'
    and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
  order by p.proname`;

function checkCatalogue(procs: Record<string, unknown>[]): void {
  const byName = new Map(procs.map((p) => [String(p.name), p]));
  expect([...byName.keys()].sort()).toEqual(Object.keys(ALL_FUNCTIONS).sort());
  for (const [fn, spec] of Object.entries(ALL_FUNCTIONS)) {
    const proc = byName.get(fn);
    const names = Object.keys(spec);
    expect(proc?.args, fn).toEqual(names.map((n) => `p_${n}`));
    expect(proc?.types, fn).toEqual(Object.values(spec).map(sqlType));
    const optional = Object.values(spec).filter((t) => t.endsWith('?')).length;
    expect(proc?.ndefaults, fn).toBe(optional);
    // Optional arguments are the trailing ones, as SQL requires.
    expect(
      Object.values(spec)
        .slice(names.length - optional)
        .every((t) => t.endsWith('?')),
      fn,
    ).toBe(true);
  }
}

describe('the catalogue matches the migrations', () => {
  it('has a row schema for every function and no overlap between read and admin', () => {
    expect(Object.keys(ROW_SCHEMAS).sort()).toEqual(Object.keys(ALL_FUNCTIONS).sort());
    expect(Object.keys(READ_FUNCTIONS).filter((f) => f in ADMIN_FUNCTIONS)).toEqual([]);
  });

  it('SCHEMA_VERSION is the newest migration', () => {
    expect(loadMigrations().at(-1)?.version).toBe(SCHEMA_VERSION);
  });

  describe('on PGlite', () => {
    let sql: SqlClient;
    beforeAll(async () => {
      sql = await openPglite(undefined);
    });
    afterAll(() => sql.close());

    it('migrates once, then is a no-op', async () => {
      const first = await migrate(sql, { embeddingDimensions: TEST_DIMENSIONS });
      expect(first).toEqual({ applied: loadMigrations().map((m) => m.version), fresh: true });
      expect(await migrate(sql, { embeddingDimensions: TEST_DIMENSIONS })).toEqual({ applied: [], fresh: false });
      const [info] = await sql.query('select * from schema_info()');
      expect(info).toEqual({ version: SCHEMA_VERSION, vectors_available: true, embedding_dimensions: TEST_DIMENSIONS });
    });

    it('every catalogued function exists with the same arguments, types and defaults', async () => {
      checkCatalogue(await sql.query(PROCS));
    });

    it('reports the newest recorded migration, so a later migration only adds its own SQL', async () => {
      const later = {
        version: '20991231000000',
        name: 'later',
        sql: 'create table if not exists public.later_probe (id int)',
      };
      expect(
        (await migrate(sql, { embeddingDimensions: TEST_DIMENSIONS, migrations: [...loadMigrations(), later] }))
          .applied,
      ).toEqual([later.version]);
      expect((await sql.query('select version from schema_info()'))[0]).toEqual({ version: later.version });
    });
  });

  describe('on a Supabase-like database (anon, authenticated and service_role roles)', () => {
    let sql: SqlClient;
    beforeAll(async () => {
      sql = await openPglite(undefined);
      await sql.exec(`
        create role anon nologin; create role authenticated nologin; create role service_role nologin bypassrls;
        grant usage on schema public to anon, authenticated, service_role;
      `);
      await migrate(sql, { embeddingDimensions: TEST_DIMENSIONS });
      await sql.exec(`insert into campaigns (tenant_id, source_key, company, channel, capture_date, campaign_text)
        values ('00000000-0000-4000-8000-000000000001', 'k', 'Acme', 'Email', '2026-10-01', 'green power')`);
    });
    afterAll(() => sql.close());

    const as = (role: string, query: string) =>
      sql.transaction(async (tx) => {
        await tx.exec(`set local role ${role}`);
        return tx.query(query);
      });

    it('the service role can call the functions and import', async () => {
      const rows = await as('service_role', `select * from filter_campaigns('00000000-0000-4000-8000-000000000001')`);
      expect(rows.map((r) => r.company)).toEqual(['Acme']);
      const staged = await as(
        'service_role',
        `select * from import_stage('00000000-0000-4000-8000-000000000001', gen_random_uuid(), 'faqs', 0, '[]')`,
      );
      expect(staged).toEqual([{ staged: 0 }]);
    });

    it('anon and authenticated can neither call the functions nor read the tables', async () => {
      for (const role of ['anon', 'authenticated']) {
        await expect(as(role, `select * from default_tenant()`)).rejects.toThrow(/permission denied/);
        await expect(as(role, `select * from campaigns`)).rejects.toThrow(/permission denied/);
      }
    });
  });

  describe.skipIf(!TEST_DATABASE_URL)('on Postgres without pgvector', () => {
    let db: TestDatabase;
    let sql: SqlClient;
    beforeAll(async () => {
      db = await createTestDatabase();
      sql = openPostgres(db.url);
    });
    afterAll(async () => {
      await sql.close();
      await db.drop();
    });

    it('applies cleanly, then is a no-op', async () => {
      const first = await migrate(sql, { embeddingDimensions: TEST_DIMENSIONS });
      expect(first.applied).toHaveLength(loadMigrations().length);
      expect((await migrate(sql, { embeddingDimensions: TEST_DIMENSIONS })).applied).toEqual([]);
      const [info] = await sql.query('select * from schema_info()');
      expect(info).toMatchObject({ version: SCHEMA_VERSION, vectors_available: false, embedding_dimensions: null });
    });

    it('every catalogued function exists with the same arguments, types and defaults', async () => {
      checkCatalogue(await sql.query(PROCS));
    });

    it('records versions where the Supabase CLI looks for them', async () => {
      const rows = await sql.query('select version, name from supabase_migrations.schema_migrations order by version');
      expect(rows.map((r) => r.version)).toEqual(loadMigrations().map((m) => m.version));
    });
  });
});
