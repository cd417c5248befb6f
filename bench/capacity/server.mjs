/**
 * The server side of bench/capacity.ts: Switchboard as `npm start` runs it (HTTP API, memory
 * state, the embedded database on disk in a scratch directory), in its own process so its memory is measured alone: the compiled tree (`dist/`, as the
 * Docker image runs it) with CAPACITY_DIST=1, else the sources through tsx. Reports its URL over
 * IPC, samples its memory every 20 ms and reports the peaks (after a GC: what is still held)
 * when asked.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics, writeHeapSnapshot } from 'node:v8';

const root = process.env.CAPACITY_DIST ? '../../dist' : '../../src';
const { serve } = await import(`${root}/wiring/serve.js`);
const { parseConfig } = await import(`${root}/config/index.js`);
const { silentLogger } = await import(`${root}/telemetry/logger.js`);

// The same token bench/capacity.ts sends.
const CAPACITY_API_TOKEN = 'capacity-bench-token-0123456789abcdef';
const scratch = mkdtempSync(join(tmpdir(), 'sb-capacity-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
const config = parseConfig({
  OPENAI_API_KEY: 'sk-capacity',
  OPENAI_BASE_URL: process.env.CAPACITY_LLM_URL ?? '',
  OPENAI_MAX_RETRIES: '0',
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
  // Callers with the API token are known by the userId they send: a thousand distinct people.
  // (Anonymous loopback callers are one person to the per-user flood limit, 20 a minute.)
  API_TOKEN: CAPACITY_API_TOKEN,
  // The embedded database on disk in a scratch directory, as `npm start` keeps it (in memory it
  // would also hold the data files); CAPACITY_DATABASE_URL (migrated) for the production shape.
  // CAPACITY_MEMORY=1: in memory (PGLITE_MEMORY=1), as bench/footprint.ts measures it.
  ...(process.env.CAPACITY_DATABASE_URL
    ? { DATABASE_URL: process.env.CAPACITY_DATABASE_URL }
    : process.env.CAPACITY_MEMORY
      ? { PGLITE_MEMORY: '1' }
      : { PGLITE_DIR: join(scratch, 'pglite') }),
  ...(process.env.CAPACITY_REDIS_URL ? { REDIS_URL: process.env.CAPACITY_REDIS_URL } : {}),
});
const serving = await serve(config, silentLogger());
const keys = ['rss', 'heapUsed', 'external', 'arrayBuffers'];
const peak = Object.fromEntries(keys.map((k) => [k, 0]));
const idle = process.memoryUsage();
setInterval(() => {
  const m = process.memoryUsage();
  for (const k of keys) peak[k] = Math.max(peak[k], m[k]);
}, 20).unref();
/** The inspector session of the allocation profile in progress (CAPACITY_ALLOC), one per round. */
let profiler;
process.on('message', async (msg) => {
  if (msg === 'report') {
    globalThis.gc?.();
    process.send?.({
      idle,
      peak,
      now: process.memoryUsage(),
      maxRssKb: process.resourceUsage().maxRSS,
      cpu: process.cpuUsage(),
      heapLimit: getHeapStatistics().heap_size_limit,
    });
  }
  // Diagnostics (bench/capacity.ts: CAPACITY_SNAPSHOT, CAPACITY_ALLOC).
  if (typeof msg === 'string' && msg.startsWith('snapshot:')) {
    writeHeapSnapshot(msg.slice('snapshot:'.length));
    process.send?.('snapped');
  }
  if (msg === 'alloc-start') {
    profiler = new Session();
    profiler.connect();
    await profiler.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    process.send?.('alloc-started');
  }
  if (typeof msg === 'string' && msg.startsWith('alloc-stop:')) {
    const { profile } = await profiler.post('HeapProfiler.stopSampling');
    profiler.disconnect();
    writeFileSync(msg.slice('alloc-stop:'.length), JSON.stringify(profile));
    process.send?.('alloc-stopped');
  }
  if (msg === 'reset') for (const k of keys) peak[k] = 0;
  if (msg === 'stop') {
    await serving.stop();
    process.exit(0);
  }
});
process.send?.({ url: serving.url });
