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

// Under a `dist/` folder as in the image, where the CLIs name themselves `node dist/…` (cli-command.ts).
const SCRATCH = join(process.cwd(), '.data', `image-test-${process.pid}`);
const OUT = join(SCRATCH, 'dist');
const run = (args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });

/** The admin commands README.md documents as `node dist/…` in the image. */
const ADMIN_COMMANDS = [
  'data/cli/migrate.js',
  'data/cli/import.js',
  'data/cli/embed.js',
  'data/cli/usage.js',
  'data/cli/tenants.js',
  'adapters/discord/deploy.js',
];

beforeAll(() => {
  const tsc = spawnSync(
    process.execPath,
    ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--outDir', OUT],
    // A full compile: minutes on a busy 2-core machine.
    { encoding: 'utf8', timeout: 300_000 },
  );
  expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
}, 330_000);
afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }));

describe('the compiled tree (as in the image)', () => {
  it('has an entry point for the app and every admin command', () => {
    for (const f of ['main.js', ...ADMIN_COMMANDS]) expect(existsSync(join(OUT, f)), f).toBe(true);
  });

  it('every admin command the README names for the image answers --help, and refuses an unknown option with exit 2', () => {
    for (const file of ADMIN_COMMANDS) {
      const help = run([join(OUT, file), '--help'], { PGLITE_MEMORY: '1', LOG_LEVEL: 'silent' });
      expect(help.status, `${file} --help: ${help.stdout}${help.stderr}`).toBe(0);
      // Named as the image runs it: there is no npm script and no src/ there.
      expect(help.stdout, file).toMatch(new RegExp(`^Usage: node dist/${file.replace('.', '\\.')}`));
      const unknown = run([join(OUT, file), '--no-such-option'], { PGLITE_MEMORY: '1', LOG_LEVEL: 'silent' });
      expect(unknown.status, `${file} --no-such-option: ${unknown.stdout}${unknown.stderr}`).toBe(2);
      expect(unknown.stderr, file).toContain("Unknown option '--no-such-option'.");
      expect(unknown.stderr, file).not.toMatch(/\n\s+at /);
    }
  }, 120_000);

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
