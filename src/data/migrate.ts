import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../telemetry/logger.js';
import type { SqlClient } from './transports/types.js';

/**
 * Applies `supabase/migrations/*.sql` to PGlite or Postgres. Applied versions are
 * recorded in `supabase_migrations.schema_migrations`, the table the Supabase CLI
 * uses, so `npm run db:migrate` and `supabase db push` agree on what has run.
 */

/**
 * The newest migration; the port refuses a database whose schema_info() is older. (Since
 * 20261127000000, schema_info() reports the newest version recorded in schema_migrations, so a
 * new migration only bumps this constant; it no longer redefines that function.)
 */
export const SCHEMA_VERSION = '20261211000000';

export interface Migration {
  version: string;
  name: string;
  sql: string;
}

/** Finds `supabase/migrations` above this module (works from src/ with tsx and from dist/). */
export function migrationsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'supabase', 'migrations');
    if (existsSync(candidate)) return candidate;
    dir = resolve(dir, '..');
  }
  throw new Error('supabase/migrations not found next to the application');
}

export function loadMigrations(dir = migrationsDir()): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{14}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((f) => {
      const [, version = '', name = ''] = /^(\d{14})_(.+)\.sql$/.exec(f) ?? [];
      return { version, name, sql: readFileSync(join(dir, f), 'utf8') };
    });
}

export interface MigrateResult {
  /** Versions applied by this run. */
  applied: string[];
  /** True when the database had no migrations before this run. */
  fresh: boolean;
}

export interface MigrateOptions {
  /** The embedding column's dimension, used when the vector migration first runs. */
  embeddingDimensions: number;
  log?: Logger;
  migrations?: Migration[];
}

/**
 * Applies every pending migration in one transaction, under an advisory lock so two
 * processes starting at once do not both migrate.
 */
export async function migrate(sql: SqlClient, opts: MigrateOptions): Promise<MigrateResult> {
  const migrations = opts.migrations ?? loadMigrations();
  return sql.transaction(async (tx) => {
    await tx.query(`select pg_advisory_xact_lock(hashtext('switchboard:migrate'))`);
    await tx.exec(`
      create schema if not exists supabase_migrations;
      create table if not exists supabase_migrations.schema_migrations (version text not null primary key);
      alter table supabase_migrations.schema_migrations add column if not exists statements text[];
      alter table supabase_migrations.schema_migrations add column if not exists name text;
    `);
    const done = new Set(
      (await tx.query('select version from supabase_migrations.schema_migrations')).map((r) => String(r.version)),
    );
    await tx.query(`select set_config('switchboard.embedding_dimensions', $1, true)`, [
      String(opts.embeddingDimensions),
    ]);
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      opts.log?.info({ version: m.version, name: m.name }, 'applying migration');
      await tx.exec(m.sql);
      await tx.query('insert into supabase_migrations.schema_migrations (version, name) values ($1, $2)', [
        m.version,
        m.name,
      ]);
      applied.push(m.version);
    }
    return { applied, fresh: done.size === 0 };
  });
}

/** Versions recorded as applied (empty when the database was never migrated). */
export async function appliedMigrations(sql: SqlClient): Promise<string[]> {
  const exists = await sql.query(`select to_regclass('supabase_migrations.schema_migrations') is not null as ok`);
  if (exists[0]?.ok !== true) return [];
  const rows = await sql.query('select version from supabase_migrations.schema_migrations order by version');
  return rows.map((r) => String(r.version));
}
