/**
 * The embedded database's template (assets/pglite-template.*): a new data directory starts from
 * it instead of initdb, holds exactly what initdb plus the migrations would, gets the demo data
 * on its first start only, and a template that does not fit (other dimensions, a damaged
 * archive) is skipped with a log line, the database then created by initdb as before. A
 * database in memory (PGLITE_MEMORY=1) is filled from the same template.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { openDataPort, SCHEMA_VERSION } from '../../src/data/index.js';
import { migrate } from '../../src/data/migrate.js';
import { embeddingStatusRow } from '../../src/data/rows.js';
import { openPglite } from '../../src/data/transports/pglite.js';
import {
  createFromTemplate,
  installedPgliteVersion,
  readTemplate,
  TEMPLATE_ARCHIVE,
  TEMPLATE_DIR,
  TEMPLATE_META,
  templateMeta,
} from '../../src/data/transports/pglite-template.js';
import type { SqlClient } from '../../src/data/transports/types.js';
import { createLogger, silentLogger } from '../../src/telemetry/logger.js';

const work = mkdtempSync(join(tmpdir(), 'sb-template-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const DEFAULTS = parseConfig({ OPENAI_API_KEY: 'sk-test' });
const want = { embeddingDimensions: DEFAULTS.EMBEDDING_DIMENSIONS, schemaVersion: SCHEMA_VERSION };

function capturingLogger(level = 'info') {
  const lines: { msg: string; reason?: string }[] = [];
  return {
    lines,
    log: createLogger(level, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }) }),
  };
}

/** A template directory whose description is right and whose archive is cut short. */
function damagedTemplate(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, TEMPLATE_META), readFileSync(join(TEMPLATE_DIR, TEMPLATE_META)));
  writeFileSync(join(dir, TEMPLATE_ARCHIVE), readFileSync(join(TEMPLATE_DIR, TEMPLATE_ARCHIVE)).subarray(0, 50_000));
  return dir;
}

/** Every public function's signature and every public column: what the migrations define. */
async function schemaOf(sql: SqlClient): Promise<unknown> {
  const functions = await sql.query(
    `select p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') ' || pg_get_function_result(p.oid) as f
     from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname in ('public', 'sb_private') order by 1`,
  );
  const columns = await sql.query(
    `select table_name || '.' || column_name || ' ' || data_type as c from information_schema.columns where table_schema = 'public' order by 1`,
  );
  return { functions: functions.map((r) => r.f), columns: columns.map((r) => r.c) };
}

describe('the embedded database template', () => {
  it('is current: built by the installed PGlite, from every migration, with the default dimensions (else run `npm run db:template`)', () => {
    const meta = templateMeta.parse(JSON.parse(readFileSync(join(TEMPLATE_DIR, TEMPLATE_META), 'utf8')));
    expect(existsSync(join(TEMPLATE_DIR, TEMPLATE_ARCHIVE))).toBe(true);
    expect(meta).toEqual({
      pglite: installedPgliteVersion(),
      schemaVersion: SCHEMA_VERSION,
      embeddingDimensions: DEFAULTS.EMBEDDING_DIMENSIONS,
    });
  });

  it('creates a new data directory that holds what initdb and the migrations would, seeded on the first start only', async () => {
    const dir = join(work, 'from-template');
    const { lines, log } = capturingLogger('debug');
    expect(await createFromTemplate(dir, want, log)).toBe(true);
    expect(lines.map((l) => l.msg)).toContain('embedded database created from the template');
    expect(readdirSync(work).filter((name) => name.includes('.template-'))).toEqual([]); // no staging left behind

    const fromTemplate = await openPglite(dir);
    const fromInitdb = await openPglite(undefined);
    try {
      expect((await migrate(fromTemplate, { embeddingDimensions: want.embeddingDimensions })).applied).toEqual([]);
      await migrate(fromInitdb, { embeddingDimensions: want.embeddingDimensions });
      expect(await schemaOf(fromTemplate)).toEqual(await schemaOf(fromInitdb));
    } finally {
      await fromTemplate.close();
      await fromInitdb.close();
    }

    // The same directory started as the app starts it: a template is fresh, so it gets the demo data once.
    const config = parseConfig({ OPENAI_API_KEY: 'sk-test', PGLITE_DIR: dir });
    const campaigns = async () => {
      const port = await openDataPort(config, silentLogger());
      try {
        const tenant = await port.defaultTenant();
        return (await port.call('embedding_status', { tenant_id: tenant.id }, embeddingStatusRow))[0]?.campaigns;
      } finally {
        await port.close();
      }
    };
    rmSync(dir, { recursive: true, force: true });
    const first = await campaigns();
    expect(first).toBeGreaterThan(0);
    expect(await campaigns()).toBe(first);
  }, 60_000);

  it('fills a directory that exists but is empty (created beforehand for the volume)', async () => {
    const dir = join(work, 'empty');
    mkdirSync(dir);
    expect(await createFromTemplate(dir, want, silentLogger())).toBe(true);
    expect(readdirSync(dir)).toContain('PG_VERSION');
  });

  it('leaves a directory that already holds a database alone', async () => {
    const dir = join(work, 'existing');
    mkdirSync(dir);
    writeFileSync(join(dir, 'PG_VERSION'), '17\n');
    expect(await createFromTemplate(dir, want, silentLogger())).toBe(false);
    expect(readdirSync(dir)).toEqual(['PG_VERSION']);
  });

  it('is skipped, saying why, when it does not fit: other embedding dimensions, or a damaged archive', async () => {
    const other = capturingLogger();
    const dir = join(work, 'other-dims');
    expect(await createFromTemplate(dir, { ...want, embeddingDimensions: 64 }, other.log)).toBe(false);
    expect(existsSync(dir)).toBe(false);
    expect(other.lines[0]).toMatchObject({
      msg: expect.stringContaining('does not fit'),
      reason: expect.stringContaining('EMBEDDING_DIMENSIONS is 64'),
    });

    const damaged = damagedTemplate('damaged-template');
    const warned = capturingLogger();
    const target = join(work, 'from-damaged');
    expect(await createFromTemplate(target, want, warned.log, damaged)).toBe(false);
    expect(warned.lines[0]?.msg).toMatch(
      /could not create the embedded database from its template; creating it with initdb/,
    );
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(work).filter((name) => name.includes('.template-'))).toEqual([]);
  });

  it('fills a database in memory: the same schema as initdb and the migrations, the demo data, no initdb', async () => {
    const template = await readTemplate(want, silentLogger());
    expect(template?.schemaVersion).toBe(SCHEMA_VERSION);
    expect(template?.files.map((f) => f.name)).toContain('PG_VERSION');
    const inMemory = await openPglite(undefined, { template: template! });
    const fromInitdb = await openPglite(undefined);
    try {
      expect((await migrate(inMemory, { embeddingDimensions: want.embeddingDimensions })).applied).toEqual([]);
      await migrate(fromInitdb, { embeddingDimensions: want.embeddingDimensions });
      expect(await schemaOf(inMemory)).toEqual(await schemaOf(fromInitdb));
      // Only the database PGlite opens: initdb's `postgres` and `template0` would double what memory holds.
      expect(await inMemory.query('select datname from pg_database')).toEqual([{ datname: 'template1' }]);
      // It is a working database, not a read-only copy: writes land and read back.
      await inMemory.exec('create table scratch (n int); insert into scratch values (1), (2)');
      expect(await inMemory.query('select sum(n)::int as s from scratch')).toEqual([{ s: 3 }]);
    } finally {
      await inMemory.close();
      await fromInitdb.close();
    }

    // As the app opens it: fresh, so seeded with the demo data, and said to come from the template.
    const { lines, log } = capturingLogger();
    const port = await openDataPort(parseConfig({ OPENAI_API_KEY: 'sk-test', PGLITE_MEMORY: '1' }), log);
    try {
      const tenant = await port.defaultTenant();
      const [status] = await port.call('embedding_status', { tenant_id: tenant.id }, embeddingStatusRow);
      expect(status?.campaigns).toBeGreaterThan(0);
      expect(lines.find((l) => l.msg === 'embedded database ready')).toMatchObject({
        dataDir: 'memory',
        template: true,
      });
    } finally {
      await port.close();
    }
  }, 60_000);

  it('in memory, a template that does not fit or is damaged gives way to initdb, saying why', async () => {
    const other = capturingLogger();
    expect(await readTemplate({ ...want, embeddingDimensions: 64 }, other.log)).toBeNull();
    expect(other.lines[0]).toMatchObject({ reason: expect.stringContaining('EMBEDDING_DIMENSIONS is 64') });

    const damaged = damagedTemplate('damaged-for-memory');
    const warned = capturingLogger();
    expect(await readTemplate(want, warned.log, damaged)).toBeNull();
    expect(warned.lines[0]?.msg).toMatch(
      /could not read the embedded database template; creating the database with initdb/,
    );
  });
});
