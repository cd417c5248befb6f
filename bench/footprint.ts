/**
 * The footprint in one go: what an idle Switchboard holds in memory, started three ways, and
 * the embedded default under 1,000 concurrent turns.
 *
 *   npx tsx bench/footprint.ts [--runs 3] [--idle-ms 20000] [--rounds 3] [--database-url postgres://…] [--no-build]
 *
 * 1. `npm start` on the embedded database on disk (a fresh PGLITE_DIR: a first start), idle;
 *    also its time to ready. Target: ≤ 300 MB RSS, first start ≤ 3 s. Then a later start on
 *    the same directory (no unpacking, no demo seed), idle.
 * 2. `npm start` on Postgres, idle.
 * 3. The compiled image's shape, `node dist/main.js`, on Postgres, idle (`npm run build` first
 *    unless --no-build). Target: ≤ 120 MB.
 * 4. bench/capacity.ts on the embedded database in memory (PGLITE_MEMORY=1): 1,000 concurrent
 *    turns, the model answering each after 1 s. Target: all answered in ≤ 4 s, peak RSS ≤ 450 MB.
 *
 * Postgres comes from --database-url, else FOOTPRINT_DATABASE_URL or TEST_DATABASE_URL; it is
 * migrated first (`npm run db:migrate`). Without one, 2 and 3 are skipped.
 *
 * Idle RSS is read from outside (/proc, else `ps`) `--idle-ms` after /readyz first answers 200
 * (default 20 s): V8's memory reducer collects start-up's garbage about 15 s after start (a
 * first start on the embedded database drops by 35–40 MB then), and what is left is what an
 * operator's container holds from then on. The reading 5 s after ready is printed beside it.
 * Each figure is given per run and as a range; RSS moves by a few MB between runs, times by much
 * more on a shared machine, so the load average is printed with them.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { imageEnv, npmStart, rssOf, startServer } from './lib/server-process.js';

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'idle-ms': { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '3' },
    'database-url': { type: 'string' },
    'no-build': { type: 'boolean', default: false },
  },
});
const RUNS = Number(flags.runs);
const IDLE_MS = Number(flags['idle-ms']);
/** The early reading, before V8's memory reducer has run. */
const EARLY_MS = 5000;
const ROUNDS = Number(flags.rounds);
for (const [name, value] of [
  ['--runs', RUNS],
  ['--rounds', ROUNDS],
] as const)
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number, at least 1`);
if (!Number.isFinite(IDLE_MS) || IDLE_MS < EARLY_MS)
  throw new Error(`--idle-ms must be a number of milliseconds, at least ${EARLY_MS}`);
const DATABASE_URL = flags['database-url'] ?? process.env.FOOTPRINT_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const root = new URL('..', import.meta.url);

const MB = (b: number) => (b / 1024 / 1024).toFixed(0);
const range = (xs: number[], fmt: (x: number) => string) =>
  xs.length === 0 ? '-' : `${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}`;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** Starts the server, reads its RSS 5 s and `IDLE_MS` after ready, stops it. */
async function idle(args: string[], env: Record<string, string>): Promise<Idle> {
  const server = await startServer(args, env);
  try {
    await new Promise((resolve) => setTimeout(resolve, EARLY_MS));
    const early = rssOf(server.child.pid!);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS - EARLY_MS));
    return { rss: rssOf(server.child.pid!), early, readyMs: server.readyMs };
  } finally {
    await server.stop();
  }
}

interface Idle {
  rss: number;
  early: number;
  readyMs: number;
}

/** `… MB (range; at 5 s: …)` for a list of idle readings. */
function idleFigures(xs: Idle[], target?: string): string {
  return `idle RSS ${xs.map((r) => MB(r.rss)).join(', ')} MB (${range(
    xs.map((r) => r.rss),
    MB,
  )} MB${target ? `; target ${target}` : ''}; 5 s after ready: ${xs.map((r) => MB(r.early)).join(', ')} MB)`;
}

function run(label: string, args: string[], env: Record<string, string> = {}): void {
  const result = spawnSync(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (result.status !== 0) throw new Error(`${label} failed (exit ${result.status})`);
}

console.log(
  `footprint (node ${process.version}, ${RUNS} run(s) each, idle RSS read ${IDLE_MS / 1000} s after ready; load average ${load()})`,
);

// 1. npm start, embedded database on disk, first start.
const start = npmStart();
const embedded: Idle[] = [];
const later: Idle[] = [];
for (let i = 0; i < RUNS; i++) {
  const dir = await mkdtemp(join(tmpdir(), 'sb-footprint-'));
  try {
    embedded.push(await idle(start.args, { ...start.env, PGLITE_DIR: join(dir, 'pglite') }));
    later.push(await idle(start.args, { ...start.env, PGLITE_DIR: join(dir, 'pglite') }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
console.log(
  `npm start, embedded database on disk (first start): ${idleFigures(embedded, '≤ 300')}, ` +
    `ready in ${embedded.map((r) => (r.readyMs / 1000).toFixed(2)).join(', ')} s (target ≤ 3 s)`,
);
console.log(`npm start, embedded database on disk (a later start, same directory): ${idleFigures(later)}`);

// 2 and 3. Postgres: npm start, then the compiled tree.
if (!DATABASE_URL) {
  console.log('Postgres: skipped (no --database-url, FOOTPRINT_DATABASE_URL or TEST_DATABASE_URL)');
} else {
  run('migrating the database', ['--import', 'tsx', 'src/data/cli/migrate.ts'], { DATABASE_URL });
  const postgres: number[] = [];
  for (let i = 0; i < RUNS; i++) postgres.push((await idle(start.args, { ...start.env, DATABASE_URL })).rss);
  console.log(`npm start, Postgres: idle RSS ${postgres.map(MB).join(', ')} MB (${range(postgres, MB)} MB)`);
  if (!flags['no-build']) run('npm run build', ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json']);
  const compiled: Idle[] = [];
  for (let i = 0; i < RUNS; i++) compiled.push(await idle(['dist/main.js'], { ...imageEnv(), DATABASE_URL }));
  console.log(`node dist/main.js (the image), Postgres: ${idleFigures(compiled, '≤ 120')}`);
}

// 4. Capacity on the embedded database in memory: bench/capacity.ts, its own report passed through.
interface CapacityReport {
  rounds: { answered: number; turns: number; wallMs: number; rssBefore: number; peakRss: number }[];
  maxRss: number;
}
const loadBefore = load();
const capacity = spawn(
  process.execPath,
  ['--import', 'tsx', 'bench/capacity.ts', '--memory', '--rounds', String(ROUNDS), '--json'],
  { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
);
let report: CapacityReport | undefined;
for await (const line of createInterface({ input: capacity.stdout })) {
  if (line.startsWith('JSON ')) report = JSON.parse(line.slice(5)) as CapacityReport;
  else console.log(`  ${line}`);
}
const exitCode = await new Promise<number | null>((resolve) => capacity.once('exit', resolve));
if (exitCode !== 0 || !report) throw new Error(`bench/capacity.ts failed (exit ${exitCode})`);
const answered = report.rounds.every((r) => r.answered === r.turns);
console.log(
  `capacity, embedded database in memory (src/ through tsx, as npm start): ${answered ? 'all answered' : 'NOT all answered'} in ` +
    `${report.rounds.map((r) => (r.wallMs / 1000).toFixed(2)).join(', ')} s (target ≤ 4 s), ` +
    `peak RSS ${report.rounds.map((r) => MB(r.peakRss)).join(', ')} MB (target ≤ 450; the process's maximum ${MB(report.maxRss)} MB); ` +
    `load average ${loadBefore} before, ${load()} after`,
);
