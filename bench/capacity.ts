/**
 * Capacity of one instance: N concurrent turns over HTTP (`POST /api/chat`, distinct threads and
 * people), against a loopback LLM that answers each after `--llm-ms` (default 1 s). Switchboard
 * runs in a child process (as `npm start` does: HTTP API, embedded database, memory state) so
 * its memory is its own.
 *
 *   npx tsx bench/capacity.ts [--turns 1000] [--llm-ms 1000] [--rounds 3] [--dist] [--memory]
 *
 * `--memory` keeps the embedded database in memory (PGLITE_MEMORY=1) instead of a scratch directory.
 * `--json` adds a last line `JSON {…}` with each round's figures (bench/footprint.ts reads it).
 * `--dist` runs the compiled tree (`npm run build` first), as the Docker image does; without it
 * the sources run through tsx, which holds about 30–50 MB more (docs/performance.md, Memory).
 * Either way the child gets the variables `npm start` or the image sets (MALLOC_ARENA_MAX).
 *
 * For finding where memory goes: CAPACITY_NODE_FLAGS (extra node flags for Switchboard's
 * process, e.g. `--trace-gc`), CAPACITY_ALLOC=<file> (a sampling allocation profile of each
 * round, garbage included: DevTools' .heapprofile format), CAPACITY_SNAPSHOT=<file> (heap
 * snapshots when idle, `<file>.idle`, and after the last round), CAPACITY_CPU_PROF=<dir>.
 * CAPACITY_CGROUP=<dir> runs Switchboard in an existing memory cgroup, as a container with that
 * limit would (e.g. `mkdir /sys/fs/cgroup/memory/sb512 && echo 512M >
 * /sys/fs/cgroup/memory/sb512/memory.limit_in_bytes`, as root, cgroup v1).
 *
 * Prints, per round: how many were answered, the wall time from the first request to the last
 * answer, the child's peak RSS and heap, and RSS per in-flight turn. Targets: all answered
 * within 3 s, peak RSS ≤ 400 MB.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { request, Agent } from 'node:http';
import { parseArgs } from 'node:util';
import { startFakeOpenAI } from '../test/fakes/openai-server.js';
import { imageEnv, npmStart } from './lib/server-process.js';

const { values: flags } = parseArgs({
  options: {
    turns: { type: 'string', default: '1000' },
    'llm-ms': { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    dist: { type: 'boolean', default: false },
    memory: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const TURNS = Number(flags.turns);
const API_TOKEN = 'capacity-bench-token-0123456789abcdef';
const LLM_MS = Number(flags['llm-ms']);
const ROUNDS = Number(flags.rounds);
const MB = (b: number) => (b / 1024 / 1024).toFixed(0);

// One connection per request, as a thousand separate clients would have.
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
function post(url: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          // The token bench/capacity/server.mjs sets: each request's userId is its own person.
          authorization: `Bearer ${API_TOKEN}`,
        },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
// Lenient: turns refused before the model (503 past API_MAX_TURNS_IN_FLIGHT) leave script steps unused; the bench counts them itself.
const llm = await startFakeOpenAI({ lenient: true });
const DIST = flags.dist;
const nodeArgs = [
  ...(DIST ? [] : ['--import', 'tsx']),
  '--expose-gc',
  ...(process.env.CAPACITY_NODE_FLAGS ? process.env.CAPACITY_NODE_FLAGS.split(' ') : []),
  ...(process.env.CAPACITY_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.CAPACITY_CPU_PROF] : []),
];
// CAPACITY_CGROUP: Switchboard starts inside that (existing) memory cgroup, as in a container
// with its limit: Node sizes its heap from the limit it sees at start (259 MB in 512 MB).
const CGROUP = process.env.CAPACITY_CGROUP;
const child = fork(new URL('./capacity/server.mjs', import.meta.url), {
  ...(CGROUP
    ? {
        execPath: '/bin/sh',
        execArgv: ['-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', CGROUP, process.execPath, ...nodeArgs],
      }
    : { execArgv: nodeArgs }),
  env: {
    ...process.env,
    // The variables `npm start` (or, with --dist, the Docker image) sets before node starts.
    ...(DIST ? imageEnv() : npmStart().env),
    CAPACITY_LLM_URL: llm.url,
    ...(DIST ? { CAPACITY_DIST: '1' } : {}),
    ...(flags.memory ? { CAPACITY_MEMORY: '1' } : {}),
  },
});
const [{ url }] = (await once(child, 'message')) as [{ url: string }];
if (process.env.CAPACITY_SNAPSHOT) {
  child.send(`snapshot:${process.env.CAPACITY_SNAPSHOT}.idle`);
  await once(child, 'message');
}
type Report = {
  idle: NodeJS.MemoryUsage;
  peak: { rss: number; heapUsed: number; external: number; arrayBuffers: number };
  now: NodeJS.MemoryUsage;
  maxRssKb: number;
  cpu: NodeJS.CpuUsage;
  heapLimit: number;
};
const report = async (): Promise<Report> => {
  child.send('report');
  return ((await once(child, 'message')) as [Report])[0];
};

console.log(
  `capacity: ${TURNS} concurrent turns over HTTP, LLM answers after ${LLM_MS} ms, ${DIST ? 'dist/' : 'src/ through tsx'}, ${process.env.CAPACITY_DATABASE_URL ? 'Postgres' : flags.memory ? 'embedded database in memory' : 'embedded database on disk'} (node ${process.version}${CGROUP ? `, in the memory cgroup ${CGROUP}` : ''})`,
);
const rounds: {
  answered: number;
  turns: number;
  wallMs: number;
  rssBefore: number;
  peakRss: number;
  cpuMsPerTurn: number;
}[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  llm.reset();
  llm.script(...Array.from({ length: TURNS }, () => ({ text: 'Answered.', delayMs: LLM_MS })));
  child.send('reset');
  const before = await report();
  if (round === 1) console.log(`Switchboard's V8 heap limit: ${MB(before.heapLimit)} MB`);
  if (process.env.CAPACITY_ALLOC) {
    child.send('alloc-start');
    await once(child, 'message');
  }
  const harnessCpu = process.cpuUsage();
  const started = performance.now();
  const results = await Promise.allSettled(
    Array.from({ length: TURNS }, async (_, i) => {
      const res = await post(
        `${url}/api/chat`,
        JSON.stringify({ message: `question ${i}`, threadId: `cap-${round}-${i}`, userId: `user-${round}-${i}` }),
      );
      const body = JSON.parse(res.text) as { response?: string };
      if (res.status !== 200 || body.response !== 'Answered.')
        throw new Error(`status ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
      return performance.now() - started;
    }),
  );
  const wall = performance.now() - started;
  const harness = process.cpuUsage(harnessCpu);
  if (process.env.CAPACITY_ALLOC) {
    child.send(`alloc-stop:${process.env.CAPACITY_ALLOC}${ROUNDS > 1 ? `.${round}` : ''}`);
    await once(child, 'message');
  }
  const after = await report();
  const ok = results.filter((r) => r.status === 'fulfilled').length;
  const firstError = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')?.reason as
    Error | undefined;
  const done = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])).sort((a, b) => a - b);
  const p = (q: number) =>
    done.length ? done[Math.min(done.length - 1, Math.floor(q * done.length))]!.toFixed(0) : '-';
  const cpuMsPerTurn = (after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system) / 1000 / TURNS;
  rounds.push({
    answered: ok,
    turns: TURNS,
    wallMs: wall,
    rssBefore: before.now.rss,
    peakRss: after.peak.rss,
    cpuMsPerTurn,
  });
  console.log(
    `round ${round}: answered ${ok}/${TURNS} in ${(wall / 1000).toFixed(2)} s (answer times p50 ${p(0.5)} ms, p99 ${p(0.99)} ms; Switchboard's CPU ${cpuMsPerTurn.toFixed(2)} ms a turn, the harness's (clients and LLM) ${((harness.user + harness.system) / 1000 / TURNS).toFixed(2)} ms)   ` +
      `RSS before ${MB(before.now.rss)} MB, peak ${MB(after.peak.rss)} MB (+${((after.peak.rss - before.now.rss) / 1024 / TURNS).toFixed(0)} KB per in-flight turn); ` +
      `heap peak ${MB(after.peak.heapUsed)} MB, external ${MB(after.peak.external)} MB; after GC: heap ${MB(after.now.heapUsed)} MB, RSS ${MB(after.now.rss)} MB` +
      (firstError ? `   first error: ${firstError.message}` : ''),
  );
}
if (process.env.CAPACITY_SNAPSHOT) {
  child.send(`snapshot:${process.env.CAPACITY_SNAPSHOT}`);
  await once(child, 'message');
}
const final = await report();
console.log(`process max RSS over the run: ${(final.maxRssKb / 1024).toFixed(0)} MB`);
if (flags.json) console.log(`JSON ${JSON.stringify({ rounds, maxRss: final.maxRssKb * 1024 })}`);
child.send('stop');
await once(child, 'exit');
await llm.close();
