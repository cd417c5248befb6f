/**
 * npm run db:migrate [-- --status] [--seed-demo]
 *
 * Applies supabase/migrations/ to DATABASE_URL (or, with nothing configured, to the
 * embedded database under PGLITE_DIR). For Supabase, `supabase db push` does the same;
 * both record versions in supabase_migrations.schema_migrations.
 */
import { seedDemo } from '../demo/seed.js';
import { openDataPort } from '../index.js';
import { appliedMigrations, loadMigrations, migrate } from '../migrate.js';
import { openPglite } from '../transports/pglite.js';
import { openPostgres } from '../transports/postgres.js';
import type { SqlClient } from '../transports/types.js';
import { cliSetup, describeTarget, fail } from './common.js';
import { commandLine } from '../../cli/args.js';
import { cliCommand } from '../cli-command.js';

const USAGE = `Usage: ${cliCommand('db:migrate', '[--status] [--seed-demo]')}`;

async function main(): Promise<number> {
  const args = commandLine(
    process.argv.slice(2),
    { status: { type: 'boolean' }, 'seed-demo': { type: 'boolean' } },
    USAGE,
  );
  if (args.exit !== undefined) return args.exit;
  const options = args.values;
  const { config, log } = cliSetup();
  if (config.SUPABASE_URL && !config.DATABASE_URL) {
    console.error(
      'SUPABASE_URL is set: apply the migrations with the Supabase CLI (`supabase link` then `supabase db push`),\n' +
        "or run this command with DATABASE_URL set to the project's Postgres connection string (and SUPABASE_URL unset).",
    );
    return 2;
  }
  const target = describeTarget(config);
  const sql: SqlClient = config.DATABASE_URL
    ? openPostgres(config.DATABASE_URL)
    : await openPglite(config.PGLITE_DIR, { sharedBuffers: config.PGLITE_SHARED_BUFFERS });
  try {
    if (options.status) {
      const applied = new Set(await appliedMigrations(sql));
      for (const m of loadMigrations())
        console.log(`${applied.has(m.version) ? 'applied' : 'pending'}  ${m.version}_${m.name}`);
      return 0;
    }
    const result = await migrate(sql, { embeddingDimensions: config.EMBEDDING_DIMENSIONS, log });
    console.log(
      result.applied.length === 0
        ? `${target}: already up to date.`
        : `${target}: applied ${result.applied.length} migration(s): ${result.applied.join(', ')}.`,
    );
  } finally {
    // Closed before seeding: PGlite allows one connection and the port opens its own.
    await sql.close();
  }
  if (options['seed-demo']) {
    const port = await openDataPort(config, log, { seedDemo: false });
    try {
      const seeded = await seedDemo(port, { log });
      console.log(
        `Demo data seeded: ${Object.entries(seeded.rows)
          .map(([t, n]) => `${n} ${t}`)
          .join(', ')}.`,
      );
    } finally {
      await port.close();
    }
  }
  return 0;
}

main().then((code) => process.exit(code), fail);
