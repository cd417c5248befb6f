/**
 * What the Docker image runs: the compiled tree (`npm run build` → dist/) with no src/ and no
 * tsx. Builds into a scratch directory inside the repo (so node_modules and supabase/ resolve
 * as they do under /app) and runs the admin commands the README documents for the image.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/db.js';

const OUT = join(process.cwd(), '.data', `image-test-${process.pid}`);
const run = (args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });

beforeAll(() => {
  const tsc = spawnSync(
    process.execPath,
    ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--outDir', OUT],
    { encoding: 'utf8', timeout: 120_000 },
  );
  expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
}, 150_000);
afterAll(() => rmSync(OUT, { recursive: true, force: true }));

describe('the compiled tree (as in the image)', () => {
  it('has an entry point for the app and every admin command', () => {
    for (const f of [
      'main.js',
      'data/cli/migrate.js',
      'data/cli/import.js',
      'data/cli/embed.js',
      'adapters/discord/deploy.js',
    ])
      expect(existsSync(join(OUT, f)), f).toBe(true);
  });

  it.skipIf(!TEST_DATABASE_URL)(
    'node dist/data/cli/migrate.js migrates a Postgres database and seeds the demo data, with no tsx and no src',
    async () => {
      const db: TestDatabase = await createTestDatabase();
      try {
        const env = { DATABASE_URL: db.url, EMBEDDING_DIMENSIONS: '8', LOG_LEVEL: 'silent' };
        const first = run([join(OUT, 'data/cli/migrate.js'), '--seed-demo'], env);
        expect(first.status, first.stdout + first.stderr).toBe(0);
        expect(first.stdout).toMatch(/applied \d+ migration\(s\)/);
        const again = run([join(OUT, 'data/cli/migrate.js'), '--status'], env);
        expect(again.status).toBe(0);
        expect(again.stdout).not.toContain('pending');
      } finally {
        await db.drop();
      }
    },
    90_000,
  );

  it('node dist/data/cli/import.js explains itself instead of crashing', () => {
    const res = run([join(OUT, 'data/cli/import.js')], { PGLITE_MEMORY: '1', LOG_LEVEL: 'silent' });
    expect(res.status).toBe(2);
    expect(res.stderr + res.stdout).toMatch(/usage|import/i);
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });
});
