/**
 * Per-turn overhead of the agent core: a zero-latency scripted LLM (in process, no HTTP)
 * that calls three tools, then answers. Measures everything else: tenant lookup, thread
 * lock, state load/save, history trimming, schema export, validation, tool dispatch, events.
 *
 *   npx tsx bench/core-overhead.ts [turns=2000]
 *
 * With OTEL_EXPORTER_OTLP_ENDPOINT set, the turns are traced and exported as `npm start` would
 * (docs/observability.md); unset, no OpenTelemetry SDK is loaded.
 *
 * Target: p50 ≤ 5 ms, p99 ≤ 20 ms.
 */
import { switchboardBench } from './peers/switchboard.js';
import { silentLogger } from '../src/telemetry/logger.js';
import { startTracing } from '../src/telemetry/start.js';

const turns = Number(process.argv[2] ?? 2000);
const tracing = await startTracing(process.env, silentLogger());
const { sb, turn } = await switchboardBench();

const samples: number[] = [];
let failed = 0;
for (let i = 0; i < turns + 200; i++) {
  const started = performance.now();
  if (!(await turn(i))) failed++;
  if (i >= 200) samples.push(performance.now() - started); // first 200 turns warm the JIT
}
// A refused or failed turn is fast and would flatter the figures.
if (failed)
  throw new Error(`${failed} of ${turns + 200} turns did not finish with done: the figures would not be turns`);
samples.sort((a, b) => a - b);
const pct = (p: number) => samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))]!.toFixed(2);
console.log(
  `core overhead over ${turns} turns (3 tool calls each, zero-latency LLM, ${sb.kv.backend} state, ${sb.data.kind} data, tracing ${tracing ? 'on' : 'off'})`,
);
console.log(`p50 ${pct(50)} ms   p99 ${pct(99)} ms   max ${samples.at(-1)!.toFixed(2)} ms`);
await sb.close();
await tracing?.shutdown();
