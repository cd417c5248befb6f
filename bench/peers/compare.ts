/**
 * Switchboard's core next to the Vercel AI SDK and the OpenAI Agents SDK on the same scripted
 * work (a zero-latency model asks for three parallel tool calls, then answers), in one process,
 * three interleaved rounds (the order rotates each round), after a warm-up of each.
 *
 *   npx tsx bench/peers/compare.ts [turns=2000] [rounds=3]
 *
 * Each peer runs twice: bare (`generateText` / `run()` alone), and with the same durable work
 * Switchboard's turn does (`+work`: the thread's history loaded from and saved to the same keyv
 * store, the turn's row written to the same token ledger; see app-work.ts).
 *
 * Prints each round's p50/p99 and the medians over rounds, with Switchboard's ratio to the faster
 * bare peer and to the faster peer doing the same work.
 */
import { agentsSdkBench } from './agents-sdk.js';
import { aiSdkBench } from './ai-sdk.js';
import { appWork } from './app-work.js';
import { switchboardBench } from './switchboard.js';

const turns = Number(process.argv[2] ?? 2000);
const rounds = Number(process.argv[3] ?? 3);
const WARMUP = 200;

const ours = await switchboardBench();
const runners: Record<string, { turn(i: number): Promise<boolean> }> = {
  switchboard: ours,
  'ai-sdk': aiSdkBench(),
  'agents-sdk': agentsSdkBench(),
  'ai-sdk+work': aiSdkBench(await appWork(ours.sb, 'ai-sdk')),
  'agents-sdk+work': agentsSdkBench(await appWork(ours.sb, 'agents-sdk')),
};
const names = Object.keys(runners);
const results: Record<string, { p50: number; p99: number }[]> = Object.fromEntries(names.map((n) => [n, []]));
let counter = 0;

async function measure(name: string, n: number): Promise<number[]> {
  const runner = runners[name]!;
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const ok = await runner.turn(counter++);
    const ms = performance.now() - started;
    if (!ok) throw new Error(`${name}: a turn did not finish; the figures would not be turns`);
    samples.push(ms);
  }
  return samples.sort((a, b) => a - b);
}

const pct = (s: number[], p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
for (const name of names) await measure(name, WARMUP);
for (let r = 0; r < rounds; r++) {
  const order = names.map((_, i) => names[(i + r) % names.length]!);
  for (const name of order) {
    const s = await measure(name, turns);
    results[name]!.push({ p50: pct(s, 50), p99: pct(s, 99) });
    console.log(`round ${r + 1}  ${name.padEnd(16)} p50 ${pct(s, 50).toFixed(2)} ms   p99 ${pct(s, 99).toFixed(2)} ms`);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const summary = Object.fromEntries(
  names.map((n) => [n, { p50: median(results[n]!.map((x) => x.p50)), p99: median(results[n]!.map((x) => x.p99)) }]),
);
console.log(`\nmedian of ${rounds} rounds, ${turns} turns each (node ${process.version})`);
for (const n of names)
  console.log(`${n.padEnd(16)} p50 ${summary[n]!.p50.toFixed(2)} ms   p99 ${summary[n]!.p99.toFixed(2)} ms`);
const ratio = (label: string, peers: string[]) => {
  const fastest = (k: 'p50' | 'p99') => Math.min(...peers.map((n) => summary[n]![k]));
  console.log(
    `switchboard / faster ${label}: p50 ${(summary.switchboard!.p50 / fastest('p50')).toFixed(2)}×   p99 ${(summary.switchboard!.p99 / fastest('p99')).toFixed(2)}×`,
  );
};
ratio('bare peer', ['ai-sdk', 'agents-sdk']);
ratio('peer doing the same work', ['ai-sdk+work', 'agents-sdk+work']);
await ours.sb.close();
