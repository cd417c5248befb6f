/**
 * Start-up time on the embedded database: the first start (a fresh PGLITE_DIR: migrations and
 * the demo seed) and a later start (the same directory), until /readyz answers 200.
 *
 *   npx tsx bench/startup.ts [--runs 3] [--src]
 *
 * Runs the compiled tree (`node dist/main.js`, as the Docker image does; `npm run build` first),
 * or with `--src` the sources through tsx (`npm start`). Target: first start ≤ 3 s.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { imageEnv, npmStart, startServer } from './lib/server-process.js';

const { values: flags } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, src: { type: 'boolean', default: false } },
});
const RUNS = Number(flags.runs);
const SRC = flags.src;
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`--runs must be a whole number of runs, not "${flags.runs}"`);

async function start(dir: string): Promise<number> {
  const { args, env } = SRC ? npmStart() : { args: ['dist/main.js'], env: imageEnv() };
  const server = await startServer(args, { ...env, PGLITE_DIR: dir });
  await server.stop();
  return server.readyMs;
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
