/**
 * Start-up time on the embedded database: the first start (a fresh PGLITE_DIR: migrations and
 * the demo seed) and a later start (the same directory), until /readyz answers 200.
 *
 *   npx tsx bench/startup.ts [--runs 3] [--src]
 *
 * Runs the compiled tree (`node dist/main.js`, as the Docker image does; `npm run build` first),
 * or with `--src` the sources through tsx (`npm start`). Target: first start ≤ 3 s.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: flags } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, src: { type: 'boolean', default: false } },
});
const RUNS = Number(flags.runs);
const SRC = flags.src;
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`--runs must be a whole number of runs, not "${flags.runs}"`);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function start(dir: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, SRC ? ['--import', 'tsx', 'src/main.ts'] : ['dist/main.js'], {
    env: {
      ...process.env,
      OPENAI_API_KEY: 'sk-startup',
      PGLITE_DIR: dir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      SUPABASE_URL: '',
      REDIS_URL: '',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

const first: number[] = [];
const later: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const dir = await mkdtemp(join(tmpdir(), 'sb-startup-'));
  try {
    first.push(await start(dir));
    later.push(await start(dir));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
const fmt = (xs: number[]) => xs.map((x) => (x / 1000).toFixed(2)).join(', ');
console.log(
  `start-up on the embedded database (${SRC ? 'src/ through tsx' : 'dist/'}, node ${process.version}), until /readyz is 200`,
);
console.log(`first start (migrate + demo seed): ${fmt(first)} s`);
console.log(`later start:                       ${fmt(later)} s`);
