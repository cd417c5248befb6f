/**
 * Slack ack latency, Switchboard against a bare Bolt app in the same run.
 *
 * Switchboard runs as `npm start` runs it (src/serve.ts): Slack over HTTP through Bolt's
 * HTTPReceiver with processBeforeResponse, so every event is verified, normalized and recorded
 * in the inbox *before* its 200; the inbox then runs it as a full turn (tenant, thread lock and
 * state, an LLM that answers after `llmMs` without using CPU, status + reply posted to Slack).
 * The bare app is Bolt's own HTTPReceiver acking `app_mention`s and doing nothing else. Default
 * process priorities for everything. Each app, the fake Slack Web API and every load generator
 * run in processes of their own.
 *
 * Two phases, per the durable-turns issue:
 *  1. steady: signed `app_mention`s at `rate`/s (default 50; Slack sends at most ~8/s per
 *     workspace), in interleaved rounds; every event a turn, drained before the next round.
 *     Latency from each request's scheduled send time. Target: our p99 ≤ bare p99 + 5 ms.
 *  2. burst: `burst` events (default 1,000) sent as fast as the client can with at most 100 in
 *     flight, to each app. Latency from each request's send. Target: no ack over 2.5 s; every
 *     burst event answered afterwards.
 *
 *   npx tsx bench/slack-ack.ts [--rate=50] [--seconds=4] [--rounds=5] [--burst=1000] [--llm-ms=500]
 *                              [--redis=redis://127.0.0.1:6379]   the Redis inbox instead of memory
 *   BENCH_CPU_PROF=DIR writes a CPU profile of each app process into DIR.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { FromChild, ToChild } from './slack-ack/child.js';

const flags = new Map(process.argv.slice(2).filter((a) => a.startsWith('--')).map((a) => a.slice(2).split('=') as [string, string]));
const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (positional.length) console.warn(`ignoring positional arguments ${positional.join(' ')}: use --rate=, --seconds=, --rounds=, --burst=, --llm-ms=`);
const rate = Number(flags.get('rate') ?? 50);
const seconds = Number(flags.get('seconds') ?? 4);
const rounds = Number(flags.get('rounds') ?? 5);
const burst = Number(flags.get('burst') ?? 1_000);
const llmMs = Number(flags.get('llm-ms') ?? 500);
const redisUrl = flags.get('redis') ?? process.env.BENCH_REDIS_URL;
const mentionShare = 1;
const SECRET = 'bench-signing-secret';
const BOT_USER = 'U0BENCHBOT';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts a child process and resolves with the JSON of its first stdout line. */
function child<T>(args: string[]): { ready: Promise<T>; kill: () => void; pid: number | undefined } {
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = new Promise<T>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once('line', (l) => resolve(JSON.parse(l) as T));
    proc.once('exit', (code) => reject(new Error(`child exited (${code})`)));
  });
  return { ready, kill: () => proc.kill('SIGTERM'), pid: proc.pid };
}

// ── the fake Slack, in its own process ──────────────────────────────────────────────────
const fake = child<{ url: string; origin: string; botToken: string }>([
  '--import',
  'tsx',
  new URL('../test/fakes/slack/serve.ts', import.meta.url).pathname,
  '--bot-user',
  BOT_USER,
]);
const slack = await fake.ready;
const slackStats = async () => (await (await fetch(`${slack.origin}/__fake/stats`)).json()) as { messages: number; methods: Record<string, number> };
const slackMessages = async () => (await slackStats()).messages;

// ── the two apps, each in its own process ───────────────────────────────────────────────
interface AppUnderTest {
  url: string;
  priority: string;
  proc: ChildProcess;
  ask(message: ToChild): void;
  next(): Promise<FromChild>;
}

async function startApp(script: string, args: Record<string, unknown>): Promise<AppUnderTest> {
  // fork() passes this process's execArgv on: the child runs under tsx too.
  const proc = fork(new URL(script, import.meta.url).pathname, [JSON.stringify(args)], { execArgv: [...process.execArgv, ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const inbox: FromChild[] = [];
  const waiting: ((m: FromChild) => void)[] = [];
  proc.on('message', (m: FromChild) => (waiting.shift() ?? ((x: FromChild) => inbox.push(x)))(m));
  proc.once('exit', (code) => waiting.splice(0).forEach((w) => w({ type: 'failed', message: `exited (${code})` })));
  const next = () => new Promise<FromChild>((resolve) => (inbox.length ? resolve(inbox.shift()!) : waiting.push(resolve)));
  const first = await next();
  if (first.type !== 'ready') throw new Error(`${script} did not start: ${first.type === 'failed' ? first.message : first.type}`);
  return { url: first.url, priority: first.priority, proc, ask: (m) => proc.send(m), next };
}

const common = { slackApiUrl: slack.url, botToken: slack.botToken, signingSecret: SECRET };
const apps = {
  bare: await startApp('./slack-ack/bare.ts', common),
  switchboard: await startApp('./slack-ack/switchboard.ts', { ...common, llmMs, ...(redisUrl ? { redisUrl, queue: `bench${Date.now()}` } : {}) }),
};
const targets = { bare: `${apps.bare.url}/slack/events`, switchboard: `${apps.switchboard.url}/slack/events` };

/** The load generator: plain JS in its own process, keep-alive node:http, signing each event. */
const GENERATOR = `
const http = require('node:http');
const { createHmac } = require('node:crypto');
const { url, secret, rate, count, prefix, bot, share, concurrency } = JSON.parse(process.argv[1]);
const isMention = (i) => Math.floor((i + 1) * share) > Math.floor(i * share);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
function post(body, headers) {
  return new Promise((resolve) => {
    const req = http.request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      resolve(res.statusCode);
      res.resume();
    });
    req.on('error', () => resolve(0));
    req.end(body);
  });
}
(async () => {
  const latencies = new Array(count);
  let failures = 0;
  const interval = rate > 0 ? 1000 / rate : 0;
  const start = performance.now() + 20;
  const inflight = [];
  let open = 0;
  const freed = [];
  for (let i = 0; i < count; i++) {
    // Burst (rate 0): as fast as the client can, at most \`concurrency\` requests in flight.
    while (concurrency && open >= concurrency) await new Promise((r) => freed.push(r));
    const due = interval ? start + i * interval : performance.now();
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    open++;
    const ts = prefix + '.' + String(i).padStart(6, '0');
    const body = JSON.stringify({
      token: 'x', team_id: 'T0BENCH', api_app_id: 'A0BENCH', type: 'event_callback',
      event_id: 'Ev' + prefix + i, event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ enterprise_id: null, team_id: 'T0BENCH', user_id: bot, is_bot: true, is_enterprise_install: false }],
      event: isMention(i)
        ? { type: 'app_mention', user: 'U0HUMAN', ts, event_ts: ts, text: '<@' + bot + '> status?', channel: 'C0BENCH' + (i % 20), team: 'T0BENCH' }
        : { type: 'message', channel_type: 'channel', user: 'U0HUMAN', ts, event_ts: ts, text: 'lunch anyone?', channel: 'C0BENCH' + (i % 20), team: 'T0BENCH' },
    });
    const t = Math.floor(Date.now() / 1000);
    const sig = 'v0=' + createHmac('sha256', secret).update('v0:' + t + ':' + body).digest('hex');
    inflight.push(post(body, { 'content-type': 'application/json', 'x-slack-request-timestamp': String(t), 'x-slack-signature': sig })
      .then((status) => { latencies[i] = performance.now() - due; if (status !== 200) failures++; open--; freed.shift()?.(); }));
  }
  await Promise.all(inflight);
  process.stdout.write(JSON.stringify({ latencies, failures }) + '\\n');
  process.exit(0);
})();
`;

let prefixCounter = 1_700_000_000;
function load(url: string, count: number, opts: { rate?: number; concurrency?: number } = {}): Promise<{ latencies: number[]; failures: number }> {
  const args = { url, secret: SECRET, rate: opts.rate ?? rate, count, prefix: String(++prefixCounter), bot: BOT_USER, share: mentionShare, concurrency: opts.concurrency ?? 0 };
  return child<{ latencies: number[]; failures: number }>(['-e', GENERATOR, JSON.stringify(args)]).ready;
}

/** Our turns keep running after their acks: let them finish before the next round starts. */
async function drain(expectedMessages: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await slackMessages()) < expectedMessages) {
    if (Date.now() > deadline) throw new Error(`only ${await slackMessages()} of ${expectedMessages} replies arrived`);
    await sleep(50);
  }
}

const names = ['bare', 'switchboard'] as const;
const samples = { bare: [] as number[], switchboard: [] as number[] };
const cpuMs = { bare: 0, switchboard: 0 };
const loopDelayP99 = { bare: [] as number[], switchboard: [] as number[] };
let failures = 0;
let replies = 0;
const perRound = Math.round(rate * seconds);

// Warm-up (JIT, connection pools, PGlite), not measured.
await load(targets.bare, Math.min(200, perRound));
await load(targets.switchboard, Math.min(200, perRound));
replies += Math.min(200, perRound);
await drain(replies);

for (let r = 0; r < rounds; r++) {
  for (const name of names) {
    const app = apps[name];
    app.ask({ type: 'measure' });
    const result = await load(targets[name], perRound);
    if (name === 'switchboard') await drain((replies += perRound));
    app.ask({ type: 'report' });
    const report = await app.next();
    if (report.type !== 'report') throw new Error(`${name}: ${report.type === 'failed' ? report.message : report.type}`);
    cpuMs[name] += report.cpuMs;
    loopDelayP99[name].push(report.loopDelayP99Ms);
    samples[name].push(...result.latencies);
    failures += result.failures;
  }
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const ms = (x: number) => `${x.toFixed(2).padStart(8)} ms`;
const inbox = redisUrl ? 'Redis inbox (BullMQ)' : 'in-memory inbox';
console.log(`Slack ack latency, ${rate} signed app_mentions/s (each a full turn), ${rounds} × ${seconds} s per app (${samples.bare.length} events each), loopback, LLM ${llmMs} ms, Switchboard with the ${inbox}`);
console.log(`processes at default priority (Switchboard ${apps.switchboard.priority}, bare Bolt ${apps.bare.priority})`);
for (const name of names) {
  const xs = samples[name];
  console.log(
    `${(name === 'bare' ? 'bare Bolt' : 'Switchboard').padEnd(12)} p50 ${ms(pct(xs, 50))}   p99 ${ms(pct(xs, 99))}   max ${ms(Math.max(...xs))}` +
      `   | server CPU/event ${(cpuMs[name] / xs.length).toFixed(2)} ms, event-loop delay p99 (worst round) ${Math.max(...loopDelayP99[name]).toFixed(1)} ms`,
  );
}
const steadyDiff = pct(samples.switchboard, 99) - pct(samples.bare, 99);
console.log(`p99 ack at ${rate}/s: ours ${pct(samples.switchboard, 99).toFixed(2)} ms, bare ${pct(samples.bare, 99).toFixed(2)} ms, diff ${steadyDiff >= 0 ? '+' : ''}${steadyDiff.toFixed(2)} ms (target ≤ +5 ms)   failed requests: ${failures}`);

// ── phase 2: a burst ───────────────────────────────────────────────────────────────────
const bursts: Record<(typeof names)[number], { latencies: number[]; failures: number }> = { bare: { latencies: [], failures: 0 }, switchboard: { latencies: [], failures: 0 } };
for (const name of names) {
  const started = performance.now();
  bursts[name] = await load(targets[name], burst, { rate: 0, concurrency: 100 });
  const sentIn = performance.now() - started;
  if (name === 'switchboard') {
    const before = performance.now();
    await drain((replies += burst), 300_000);
    console.log(`burst of ${burst}: sent and acked in ${(sentIn / 1000).toFixed(1)} s; all ${burst} answered ${((performance.now() - before) / 1000).toFixed(1)} s later`);
  }
}
for (const name of names) {
  const xs = bursts[name].latencies;
  const over = xs.filter((x) => x > 2_500).length;
  console.log(`burst ${(name === 'bare' ? 'bare Bolt' : 'Switchboard').padEnd(12)} p50 ${ms(pct(xs, 50))}   p99 ${ms(pct(xs, 99))}   max ${ms(Math.max(...xs))}   over 2.5 s: ${over}   failed: ${bursts[name].failures}`);
}
const ours = bursts.switchboard.latencies;
console.log(`burst: max ack ${Math.max(...ours).toFixed(1)} ms, over 2.5 s: ${ours.filter((x) => x > 2_500).length} (target 0)`);
const { messages, methods } = await slackStats();
const perTurn = Object.entries(methods).filter(([m]) => m !== 'auth.test').map(([m, n]) => `${m} ${(n / Math.max(1, replies)).toFixed(2)}`);
console.log(`Switchboard posted ${messages} replies for ${replies} mentions (every turn ran to its reply); Slack calls per answer: ${perTurn.join(', ')}`);

for (const app of Object.values(apps)) app.ask({ type: 'stop' });
await Promise.all(Object.values(apps).map((app) => new Promise((resolve) => (app.proc.exitCode !== null ? resolve(null) : app.proc.once('exit', resolve)))));
fake.kill();
process.exit(0);
