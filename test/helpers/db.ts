import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { parseConfig, type Config } from '../../src/config/index.js';
import { openDataPort, type AdminDataPort, type DataPortOptions } from '../../src/data/index.js';
import { DEMO_ANCHOR } from '../../src/data/demo/prng.js';
import { seedDemo } from '../../src/data/demo/seed.js';
import { migrate } from '../../src/data/migrate.js';
import { openPostgres } from '../../src/data/transports/postgres.js';
import { silentLogger } from '../../src/telemetry/logger.js';
import { TEST_DIMENSIONS, templateEnv } from './template-env.js';

/**
 * Databases for the data tests. PGlite runs in memory in every run; Postgres runs when
 * TEST_DATABASE_URL is set, each test file in a database of its own (created here,
 * dropped afterwards) so files running in parallel never see each other's rows.
 * Nothing here imports vitest: the benchmarks use it too.
 */

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL?.trim() || undefined;

/** Says out loud that a Postgres suite is skipped (call at the top of a test file). */
export function noticeWithoutPostgres(what: string): void {
  if (!TEST_DATABASE_URL) console.warn(`TEST_DATABASE_URL is not set: skipping ${what} on Postgres`);
}

/** Small vectors keep the embedded tests fast; the dimension is configurable anyway. */
export { TEST_DIMENSIONS } from './template-env.js';

export function testConfig(env: Record<string, string> = {}): Config {
  return parseConfig({
    PGLITE_MEMORY: '1',
    EMBEDDING_DIMENSIONS: String(TEST_DIMENSIONS),
    LOG_LEVEL: 'silent',
    ...templateEnv(TEST_DIMENSIONS),
    ...env,
  });
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** CREATE DATABASE sb_<random> on TEST_DATABASE_URL's server. */
export async function createTestDatabase(serverUrl = TEST_DATABASE_URL, prefix = 'sb'): Promise<TestDatabase> {
  if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name} template template0`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Migrates a Postgres database the way `npm run db:migrate` does. */
export async function migratePostgres(url: string, dims = TEST_DIMENSIONS): Promise<void> {
  const sql = openPostgres(url, { max: 1 });
  try {
    await migrate(sql, { embeddingDimensions: dims });
  } finally {
    await sql.close();
  }
}

/** An in-memory PGlite port with the demo data anchored at DEMO_ANCHOR. */
export async function openPgliteTestPort(
  opts: DataPortOptions = {},
  env: Record<string, string> = {},
): Promise<AdminDataPort> {
  return openDataPort(testConfig(env), silentLogger(), { demoAnchor: DEMO_ANCHOR, tenantCacheMs: 0, ...opts });
}

/** A fresh, migrated Postgres database and a port over it (demo data seeded unless told not to). */
export async function openPostgresTestPort(
  opts: { seed?: boolean } = {},
): Promise<{ port: AdminDataPort; db: TestDatabase }> {
  const db = await createTestDatabase();
  try {
    await migratePostgres(db.url);
    const port = await openDataPort(testConfig({ DATABASE_URL: db.url }), silentLogger(), { tenantCacheMs: 0 });
    if (opts.seed !== false) await seedDemo(port, { anchor: DEMO_ANCHOR });
    return { port, db };
  } catch (err) {
    await db.drop().catch(() => {});
    throw err;
  }
}
