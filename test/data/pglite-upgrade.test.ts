/**
 * An embedded data directory PGlite 0.3 wrote (test/fixtures/pglite-0.3: the demo data and a row
 * in every table) is upgraded when the app starts on it: dumped by the old engine, restored into
 * the installed one, every table's rows still there, the old directory kept as a backup, the
 * version marker written, one log line; a second start leaves it alone. The copy runs in child
 * processes (node:child_process, pglite-upgrade.ts), so this file is not in `npm run test:unit`.
 */
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createWriteStream } from 'node:fs';
import { createBrotliDecompress } from 'node:zlib';
import { extract } from 'tar-stream';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/index.js';
import { openDataPort } from '../../src/data/index.js';
import { openPglite } from '../../src/data/transports/pglite.js';
import {
  installedPgliteVersion,
  readVersionMarker,
  versionMarkerPath,
  writeVersionMarker,
} from '../../src/data/transports/pglite-version.js';
import { captureLogs } from '../helpers/harness.js';

const FIXTURE = new URL('../fixtures/pglite-0.3/data.tar.br', import.meta.url);
const work = mkdtempSync(join(tmpdir(), 'sb-pglite-upgrade-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** What the fixture holds (its make.ts prints the same): every table has rows. */
const FIXTURE_COUNTS = {
  'public.api_tokens': 2,
  'public.bookings': 35,
  'public.business_messages': 1,
  'public.businesses': 1,
  'public.campaigns': 300,
  'public.competitors': 14,
  'public.faqs': 11,
  'public.policies': 6,
  'public.products': 86,
  'public.slack_installations': 2,
  'public.supplier_prices': 215,
  'public.tenant_workspace_requests': 1,
  'public.tenant_workspaces': 3,
  'public.tenants': 2,
  'public.token_ledger': 5,
  'public.turn_log': 5,
  'sb_private.import_staging': 1,
  'supabase_migrations.schema_migrations': 19,
};

/**
 * What the upgraded database holds of the fixture's: the row count of each table the fixture had.
 * Migrations newer than the fixture run at the start too: each adds its own row to
 * schema_migrations (counted against the migration files here) and may add tables, which hold
 * nothing yet.
 */
function keptRows(counts: Record<string, number>): Record<string, number> {
  const migrations = readdirSync(new URL('../../supabase/migrations/', import.meta.url)).filter((f) =>
    f.endsWith('.sql'),
  ).length;
  const kept: Record<string, number> = {};
  for (const [table, n] of Object.entries(counts)) {
    if (table === 'supabase_migrations.schema_migrations') {
      expect(n, 'every migration applied once').toBe(migrations);
      kept[table] = FIXTURE_COUNTS[table];
    } else if (table in FIXTURE_COUNTS) kept[table] = n;
    else expect(n, `${table}, added since the fixture, is empty`).toBe(0);
  }
  return kept;
}

/** The fixture's data directory, unpacked to `dir`. */
async function unpackFixture(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const entries = extract();
  const writing = pipeline(createReadStream(FIXTURE), createBrotliDecompress(), entries);
  for await (const entry of entries) {
    const target = join(dir, entry.header.name);
    if (entry.header.type === 'directory') {
      mkdirSync(target, { recursive: true });
      entry.resume();
    } else {
      mkdirSync(dirname(target), { recursive: true });
      await pipeline(entry, createWriteStream(target));
    }
  }
  await writing;
}

async function rowCounts(dir: string): Promise<Record<string, number>> {
  const sql = await openPglite(dir);
  try {
    const tables = await sql.query(
      `select n.nspname || '.' || c.relname as t from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where c.relkind = 'r' and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'`,
    );
    const counts: Record<string, number> = {};
    for (const { t } of tables)
      counts[String(t)] = Number((await sql.query(`select count(*) as n from ${String(t)}`))[0]?.n);
    return counts;
  } finally {
    await sql.close();
  }
}

const upgradeLines = (lines: { msg?: unknown }[]) =>
  lines.filter((l) => String(l.msg).startsWith('upgraded the embedded database'));

describe('an embedded database PGlite 0.3 wrote', () => {
  it('is upgraded at start: every row kept, the old directory kept as a backup, the marker written, once', async () => {
    const dir = join(work, 'data', 'pglite');
    await unpackFixture(dir);
    expect(readVersionMarker(dir)).toBeNull();
    const config = parseConfig({ OPENAI_API_KEY: 'sk-test', PGLITE_DIR: dir });

    const first = captureLogs();
    const port = await openDataPort(config, first.log);
    try {
      // What users would miss first: the Slack workspace still maps to its tenant, the demo tenant is there.
      expect((await port.resolveTenant('slack', 'T0FIXTURE'))?.id).toBe((await port.defaultTenant()).id);
      expect(await port.tenantBySlug('harbourside')).not.toBeNull();
    } finally {
      await port.close();
    }
    expect(upgradeLines(first.logs.lines)).toEqual([
      expect.objectContaining({ level: 30, from: '0.3.16', to: installedPgliteVersion(), tables: 18, rows: 709 }),
    ]);
    expect(keptRows(await rowCounts(dir))).toEqual(FIXTURE_COUNTS);
    const backup = `${dir}.pglite-0.3.backup`;
    expect(existsSync(join(backup, 'PG_VERSION'))).toBe(true);
    expect(readVersionMarker(dir)).toBe(installedPgliteVersion());
    expect(readdirSync(dirname(dir)).filter((n) => n.includes('.upgrade'))).toEqual([]);

    const second = captureLogs();
    await (await openDataPort(config, second.log, { seedDemo: false })).close();
    expect(upgradeLines(second.logs.lines)).toEqual([]);
    expect(readdirSync(dirname(dir)).filter((n) => n.includes('.backup'))).toEqual(['pglite.pglite-0.3.backup']);
  }, 600_000);

  it('finishes an upgrade a crash interrupted after its checks (the new directory waiting beside the old)', async () => {
    const dir = join(work, 'interrupted', 'pglite');
    await (await openPglite(`${dir}.upgraded`)).close();
    rmSync(versionMarkerPath(`${dir}.upgraded`));
    mkdirSync(dir);
    writeFileSync(join(dir, 'PG_VERSION'), '17\n'); // the old directory, not yet moved aside
    const { log, logs } = captureLogs();
    const sql = await openPglite(dir, { log });
    try {
      expect(await sql.query('select current_database() as db')).toEqual([{ db: 'template1' }]);
    } finally {
      await sql.close();
    }
    expect(logs.lines.map((l) => l.msg)).toContain(
      'finished an embedded database upgrade an earlier start was interrupted in',
    );
    expect(readdirSync(join(work, 'interrupted')).sort()).toEqual([
      'pglite',
      'pglite.pglite-0.3.backup',
      'pglite.pglite-version',
    ]);
    expect(readVersionMarker(dir)).toBe(installedPgliteVersion());
  }, 120_000);

  it('is refused, plainly, when a newer PGlite wrote it', async () => {
    const dir = join(work, 'newer', 'pglite');
    await (await openPglite(dir)).close();
    writeVersionMarker(dir, '0.9.0');
    const err = await openPglite(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(String(err)).toMatch(/written by PGlite 0\.9\.0, newer than this build's/);
    renameSync(dir, `${dir}.moved`); // the directory itself was not touched
    expect(existsSync(join(`${dir}.moved`, 'PG_VERSION'))).toBe(true);
  }, 120_000);
});
