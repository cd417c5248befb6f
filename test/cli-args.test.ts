/**
 * The command lines README.md and docs/ document for our CLIs, each run as a person runs it (a
 * child process, the TypeScript through tsx, nothing from the shell's environment): both
 * `--name value` and `--name=value`, `--help`, and an unknown option refused with exit 2 and its
 * name, before the command touches anything. `npm run tenants` forms run in process in
 * test/tenant-tokens.test.ts; the compiled CLIs in test/image.test.ts.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from './fakes/openai-server.js';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `src/<file>` with `args` and only `env` (plus PATH and HOME); stdin is empty. */
function cli(file: string, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `src/${file}`, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Exit 2, the option named, the usage shown, and no stack trace. */
function expectRefused(ran: Ran, option: string, usage: RegExp): void {
  expect(ran.code, ran.stdout + ran.stderr).toBe(2);
  expect(ran.stderr).toContain(`'${option}'`);
  expect(ran.stderr).toMatch(usage);
  expect(ran.stderr).not.toMatch(/\n\s+at /);
}

const MEMORY = { PGLITE_MEMORY: '1' };

// The runs that open a database go one at a time: each is an embedded Postgres of its own.
describe('npm run usage', () => {
  const usage = (...args: string[]) => cli('data/cli/usage.ts', args, MEMORY);
  const header = /Token use and cost in the embedded database in memory, 2026-11-01 to 2026-11-30 \(UTC days\)/;

  it('takes --from and --to as `--from 2026-11-01` and as `--from=2026-11-01`, and --tenant', async () => {
    for (const args of [
      ['--from', '2026-11-01', '--to', '2026-11-30', '--tenant', 'default'],
      ['--from=2026-11-01', '--to=2026-11-30'],
    ]) {
      const ran = await usage(...args);
      expect(ran.code, `${args.join(' ')}: ${ran.stdout}${ran.stderr}`).toBe(0);
      expect(ran.stdout).toMatch(header);
      expect(ran.stdout).toContain('No turns recorded in this period.');
    }
  }, 180_000);

  it('answers --help, and refuses an unknown option, a missing value and a bad date with exit 2', async () => {
    const [help, unknown, missing, badDate] = await Promise.all([
      usage('--help'),
      usage('--frm', '2026-11-01'),
      usage('--from'),
      usage('--from', '2026-11-31'),
    ]);
    expect(help).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: npm run usage -- \[--from/) });
    expectRefused(unknown, '--frm', /Usage: npm run usage/);
    expectRefused(missing, '--from <value>', /Usage: npm run usage/);
    expect(badDate.code).toBe(2);
    expect(badDate.stderr).toContain('--from and --to take a date as YYYY-MM-DD.');
  }, 120_000);
});

describe('npm run db:migrate', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sb-cli-migrate-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('`-- --seed-demo` migrates and seeds, `-- --status` lists every migration as applied; a mistake changes nothing', async () => {
    const env = { PGLITE_DIR: join(dir, 'db') };
    const migrate = (...args: string[]) => cli('data/cli/migrate.ts', args, env);
    const [unknown, stray, help] = await Promise.all([
      migrate('--seed'),
      migrate('--status', 'now'),
      migrate('--help'),
    ]);
    expectRefused(unknown, '--seed', /Usage: npm run db:migrate/);
    expectRefused(stray, 'now', /Usage: npm run db:migrate/);
    expect(help).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: npm run db:migrate/) });
    // Refused before the database was opened: none was made.
    expect(existsSync(join(dir, 'db'))).toBe(false);
    const seeded = await migrate('--seed-demo');
    expect(seeded.code, seeded.stderr).toBe(0);
    expect(seeded.stdout).toMatch(/the embedded database in \S+: (applied \d+ migration\(s\)|already up to date)/);
    expect(seeded.stdout).toMatch(/Demo data seeded: \d+ /);
    const status = await migrate('--status');
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^applied {2}\d+_/);
    expect(status.stdout).not.toContain('pending');
  }, 240_000);
});

describe('npm run import', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sb-cli-import-'));
    await writeFile(
      join(dir, 'competitors.csv'),
      'key,display_name,full_description\nnorthwind,Northwind,A wholesale grocer.\n',
    );
    await writeFile(join(dir, 'servers.csv'), 'platform,workspace_id\ndiscord,123456789012345678\n');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const importCli = (...args: string[]) => cli('data/cli/import.ts', args, MEMORY);

  it('imports `tenant_workspaces servers.csv --tenant <slug>`; `--tenant=<slug>` names the tenant too', async () => {
    const spaced = await importCli('tenant_workspaces', join(dir, 'servers.csv'), '--tenant', 'default');
    expect(spaced.code, spaced.stderr).toBe(0);
    expect(spaced.stdout).toMatch(/Imported 1 tenant_workspaces row\(s\) into tenant "default"/);
    const joined = await importCli('competitors', join(dir, 'competitors.csv'), '--tenant=nope', '--no-embed');
    expect(joined.code).toBe(2);
    expect(joined.stderr).toContain('Unknown tenant "nope". Tenants: default');
  }, 180_000);

  it('lists the tables on --help (exit 0), and refuses an unknown option or a stray argument with exit 2', async () => {
    const [help, unknown, missing, stray] = await Promise.all([
      importCli('--help'),
      importCli('competitors', join(dir, 'competitors.csv'), '--tenant-slug', 'default'),
      importCli('competitors', join(dir, 'competitors.csv'), '--tenant'),
      importCli('competitors', join(dir, 'competitors.csv'), 'default'),
    ]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run import -- <table>/);
    expect(help.stdout).toContain('  competitors: key, display_name, full_description, campaign_key?');
    expectRefused(unknown, '--tenant-slug', /Usage: npm run import/);
    expectRefused(missing, '--tenant <value>', /Usage: npm run import/);
    expectRefused(stray, 'default', /Usage: npm run import/);
  }, 120_000);
});

describe('npm run db:embed', () => {
  let llm: FakeOpenAI;
  beforeAll(async () => {
    llm = await startFakeOpenAI();
  });
  afterAll(() => llm.close());

  it('embeds the missing campaigns of `--tenant <slug>`, and refuses an unknown option before calling the model', async () => {
    const env = { ...MEMORY, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: llm.url, EMBEDDING_MODEL: 'embed-test' };
    const embed = (...args: string[]) => cli('data/cli/embed.ts', args, env);
    const [unknown, help] = await Promise.all([embed('--tenants', 'default'), embed('--help')]);
    expectRefused(unknown, '--tenants', /Usage: npm run db:embed/);
    expect(help).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: npm run db:embed/) });
    expect(llm.requestsTo('/embeddings')).toHaveLength(0);
    const one = await embed('--tenant', 'default');
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/^Embedded \d+ campaign\(s\) in /);
  }, 180_000);
});

describe('npm run db:template, discord:deploy and chat', () => {
  it('db:template takes no option: an unknown one stops it before it rebuilds anything', async () => {
    // Never run without an error here: it would rewrite assets/pglite-template.tar.br.
    const [unknown, stray, help] = await Promise.all([
      cli('data/cli/template.ts', ['--dims', '64']),
      cli('data/cli/template.ts', ['now']),
      cli('data/cli/template.ts', ['--help']),
    ]);
    expectRefused(unknown, '--dims', /Usage: npm run db:template/);
    expectRefused(stray, 'now', /Usage: npm run db:template/);
    expect(unknown.stdout + stray.stdout).not.toContain('Wrote');
    expect(help).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: npm run db:template/) });
  }, 60_000);

  it('discord:deploy refuses an option (a guild is DISCORD_GUILD_ID) with exit 2, before calling Discord', async () => {
    // No Discord at this address: a call would fail with exit 1, not 2.
    const env = { DISCORD_TOKEN: 'token', DISCORD_APPLICATION_ID: '1', DISCORD_API_URL: 'http://127.0.0.1:9' };
    const [unknown, help] = await Promise.all([
      cli('adapters/discord/deploy.ts', ['--guild', '123'], env),
      cli('adapters/discord/deploy.ts', ['--help'], env),
    ]);
    expectRefused(unknown, '--guild', /Usage: npm run discord:deploy/);
    expect(help).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: npm run discord:deploy/) });
  }, 60_000);

  it('chat starts as `--tenant harbourside`, and refuses an unknown option with exit 2', async () => {
    const env = { ...MEMORY, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' };
    const [unknown, help] = await Promise.all([
      cli('adapters/terminal/main.ts', ['--tennant', 'harbourside'], env),
      cli('adapters/terminal/main.ts', ['--help'], env),
    ]);
    expectRefused(unknown, '--tennant', /Usage: npm run chat/);
    expect(unknown.stdout).toBe('');
    expect(help).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: npm run chat -- \[--tenant/) });
    // stdin is empty: the console starts, prompts once and ends.
    const tenant = await cli('adapters/terminal/main.ts', ['--tenant', 'harbourside'], env);
    expect(tenant.code, tenant.stderr).toBe(0);
    expect(tenant.stdout).toMatch(/^Switchboard console \(tenant harbourside, pglite data/);
  }, 180_000);
});
