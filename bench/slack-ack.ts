/**
 * Slack ack latency: signed `app_mention` events at a fixed rate against Switchboard (HTTP mode
 * as `npm start` runs it, src/serve.ts: the ingress thread verifies and acks; the main thread's
 * Bolt app runs every event as a full turn after its ack: dedup, thread following, tenant,
 * thread lock and state, an LLM that answers after `llmMs` without using CPU, status + reply
 * posted to Slack; TURN_PRIORITY as configured) and against a bare Bolt app that acks the same
 * events and does nothing else. Each app runs in a process of its own; same run, interleaved
 * rounds, and each of our rounds drains its turns before the bare app's next round. Server
 * CPU/event counts the app's whole process (all threads, drain included); the event-loop
 * delay is its main thread's.
 *
 *   npx tsx bench/slack-ack.ts [rate=200] [secondsPerRound=1.5] [rounds=8] [llmMs=500] [mentionShare=1]
 *        [--turn-priority=P]   Switchboard's TURN_PRIORITY (default: the config default, idle)
 *
 * `mentionShare` < 1 mixes in ordinary channel messages (what a bot in busy channels mostly
 * receives: acked, read and ignored); the default makes every event a full answered turn.
 * Rounds are short and many so that the machine's drift (other tenants of a shared host)
 * falls on both apps alike.
 *
 * Target: our p50 and p99 ≤ 1.25 × the bare app's, and our p99 ≤ 50 ms.
 *
 * The load generator and the fake Slack Web API each run in their own process (Slack's CPU is
 * not ours, and a sender sharing our process would be slowed by the very work it measures).
 * The fake Slack serves our turns only (about 0.5 ms of CPU per answer): on this machine it
 * competes with our acks and not with the bare app's, as Slack's own servers would not.
 * It is left at full priority all the same. Latency runs from each request's scheduled send time to
 * its response headers, so a sender that falls behind shows up in the figures instead of
 * hiding server delays.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { FromChild, ToChild } from './slack-ack/child.js';

const flags = new Map(process.argv.slice(2).filter((a) => a.startsWith('--')).map((a) => a.slice(2).split('=') as [string, string]));
const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const rate = Number(positional[0] ?? 200);
const seconds = Number(positional[1] ?? 1.5);
const rounds = Number(positional[2] ?? 8);
const llmMs = Number(positional[3] ?? 500);
const mentionShare = Math.min(1, Math.max(0, Number(positional[4] ?? 1)));
const turnPriority = flags.get('turn-priority');
/** Whether event `i` of a round is a mention (the generator uses the same rule). */
const isMention = (i: number) => Math.floor((i + 1) * mentionShare) > Math.floor(i * mentionShare);
const mentionsIn = (count: number) => Array.from({ length: count }, (_, i) => i).filter(isMention).length;
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
  const proc = fork(new URL(script, import.meta.url).pathname, [JSON.stringify(args)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
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
  switchboard: await startApp('./slack-ack/switchboard.ts', { ...common, llmMs, ...(turnPriority !== undefined ? { turnPriority } : {}) }),
};
const targets = { bare: `${apps.bare.url}/slack/events`, switchboard: `${apps.switchboard.url}/slack/events` };

/** The load generator: plain JS in its own process, keep-alive node:http, signing each event. */
const GENERATOR = `
const http = require('node:http');
const { createHmac } = require('node:crypto');
const { url, secret, rate, count, prefix, bot, share } = JSON.parse(process.argv[1]);
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
  const interval = 1000 / rate;
  const start = performance.now() + 20;
  const inflight = [];
  for (let i = 0; i < count; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
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
      .then((status) => { latencies[i] = performance.now() - due; if (status !== 200) failures++; }));
  }
  await Promise.all(inflight);
  process.stdout.write(JSON.stringify({ latencies, failures }) + '\\n');
  process.exit(0);
})();
`;

let prefixCounter = 1_700_000_000;
function load(url: string, count: number): Promise<{ latencies: number[]; failures: number }> {
  const args = { url, secret: SECRET, rate, count, prefix: String(++prefixCounter), bot: BOT_USER, share: mentionShare };
  return child<{ latencies: number[]; failures: number }>(['-e', GENERATOR, JSON.stringify(args)]).ready;
}

/** Our turns keep running after their acks: let them finish before the next round starts. */
async function drain(expectedMessages: number): Promise<void> {
  const deadline = Date.now() + 60_000;
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
replies += mentionsIn(Math.min(200, perRound));
await drain(replies);

for (let r = 0; r < rounds; r++) {
  for (const name of names) {
    const app = apps[name];
    app.ask({ type: 'measure' });
    const result = await load(targets[name], perRound);
    if (name === 'switchboard') await drain((replies += mentionsIn(perRound)));
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
const ms = (x: number) => `${x.toFixed(2).padStart(7)} ms`;
const mix = mentionShare === 1 ? 'app_mention events (each a full turn)' : `events (${Math.round(mentionShare * 100)}% app_mentions answered, the rest channel chatter)`;
console.log(`Slack ack latency at ${rate} signed ${mix}/s, ${rounds} × ${seconds} s per app (${samples.bare.length} events each), loopback, LLM ${llmMs} ms`);
console.log(`Switchboard's main thread at ${apps.switchboard.priority} (TURN_PRIORITY), bare Bolt's at ${apps.bare.priority}`);
for (const name of names) {
  const xs = samples[name];
  console.log(
    `${(name === 'bare' ? 'bare Bolt' : 'Switchboard').padEnd(12)} p50 ${ms(pct(xs, 50))}   p99 ${ms(pct(xs, 99))}   max ${ms(Math.max(...xs))}` +
      `   | server CPU/event ${(cpuMs[name] / xs.length).toFixed(2)} ms, event-loop delay p99 (worst round) ${Math.max(...loopDelayP99[name]).toFixed(1)} ms`,
  );
}
const r50 = pct(samples.switchboard, 50) / pct(samples.bare, 50);
const r99 = pct(samples.switchboard, 99) / pct(samples.bare, 99);
console.log(`ratio        p50 ${r50.toFixed(2)}×   p99 ${r99.toFixed(2)}×   (target ≤ 1.25×, and our p99 ≤ 50 ms)   failed requests: ${failures}`);
const { messages, methods } = await slackStats();
const perTurn = Object.entries(methods).filter(([m]) => m !== 'auth.test').map(([m, n]) => `${m} ${(n / Math.max(1, replies)).toFixed(2)}`);
console.log(`Switchboard posted ${messages} replies for ${replies} mentions (every turn ran to its reply); Slack calls per answer: ${perTurn.join(', ')}`);

for (const app of Object.values(apps)) app.ask({ type: 'stop' });
await Promise.all(Object.values(apps).map((app) => new Promise((resolve) => (app.proc.exitCode !== null ? resolve(null) : app.proc.once('exit', resolve)))));
fake.kill();
process.exit(0);
