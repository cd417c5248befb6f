import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/index.js';
import { cliCommand } from '../../src/data/cli-command.js';
import { openDataPort } from '../../src/data/index.js';
import { loadMigrations } from '../../src/data/migrate.js';
import { silentLogger } from '../../src/telemetry/logger.js';
import {
  createTestDatabase,
  noticeWithoutPostgres,
  TEST_DATABASE_URL,
  testConfig,
  type TestDatabase,
} from '../helpers/db.js';

noticeWithoutPostgres('MIGRATE_ON_START');
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

describe.runIf(TEST_DATABASE_URL)('MIGRATE_ON_START on Postgres', () => {
  it('off: a database without the schema is refused with the command that migrates it, and the setting', async () => {
    const db = await createTestDatabase();
    databases.push(db);
    const err = await openDataPort(testConfig({ DATABASE_URL: db.url }), silentLogger()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(String((err as Error).message)).toContain(
      'has no Switchboard schema. Run `npm run db:migrate`, or start with MIGRATE_ON_START=true',
    );
  });

  it('on: two replicas starting together both serve, and each migration is applied once', async () => {
    const db = await createTestDatabase();
    databases.push(db);
    const config = testConfig({ DATABASE_URL: db.url, MIGRATE_ON_START: 'true' });
    const ports = await Promise.all([openDataPort(config, silentLogger()), openDataPort(config, silentLogger())]);
    try {
      for (const port of ports) expect((await port.defaultTenant()).id).toEqual(expect.any(String));
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ version: string }>(
          'select version from supabase_migrations.schema_migrations order by version',
        );
        expect(rows.map((r) => r.version)).toEqual(loadMigrations().map((m) => m.version));
      } finally {
        await client.end();
      }
    } finally {
      await Promise.all(ports.map((p) => p.close()));
    }
  });
});

describe('MIGRATE_ON_START elsewhere, and the commands hints name', () => {
  it('is refused with Supabase, which migrates with its own CLI', async () => {
    const config = testConfig({
      SUPABASE_URL: 'http://127.0.0.1:1',
      SUPABASE_SERVICE_ROLE_KEY: 'k',
      MIGRATE_ON_START: 'true',
    });
    await expect(openDataPort(config, silentLogger())).rejects.toThrow(
      /MIGRATE_ON_START: works with DATABASE_URL only/,
    );
  });

  it('names the npm script in a checkout and the compiled file in the image (which has no src/)', () => {
    expect(cliCommand('db:migrate', '--seed-demo', 'file:///work/app/src/data/index.ts')).toBe(
      'npm run db:migrate -- --seed-demo',
    );
    expect(cliCommand('db:migrate', '--seed-demo', 'file:///app/dist/data/index.js')).toBe(
      'node dist/data/cli/migrate.js --seed-demo',
    );
    expect(cliCommand('import', 'campaigns <file>', 'file:///app/dist/data/index.js')).toBe(
      'node dist/data/cli/import.js campaigns <file>',
    );
  });
});
