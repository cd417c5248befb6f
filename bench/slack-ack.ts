/**
 * Slack ack latency, Switchboard against a bare Bolt app in the same run.
 *
 * Switchboard runs as `npm start` runs it (src/wiring/serve.ts): Slack over HTTP through Bolt's
 * HTTPReceiver with processBeforeResponse, so every event is verified, normalized and recorded
 * in the inbox *before* its 200; the inbox then runs it as a full turn (tenant, thread lock and
 * state, an LLM that answers after `llmMs` without using CPU, status + reply posted to Slack).
 * The bare app is Bolt's own HTTPReceiver acking `app_mention`s and doing nothing else. Default
 * process priorities for everything (no chrt, no nice). Each app, the fake Slack Web API and
 * every load generator run in processes of their own.
 *
 * Two phases, per the durable-turns issue:
 *  1. steady: signed `app_mention`s at `rate`/s (default 50; Slack sends at most ~8/s per
 *     workspace) for `seconds` per app (default 20 → 1,000 events each), in `rounds`
 *     interleaved rounds; every event a turn, answered before the next round starts. Latency
 *     from each request's scheduled send time. Target: our p99 ≤ bare p99 + 5 ms.
 *  2. burst: `burst` events (default 1,000) sent as fast as the client can with at most
 *     `concurrency` (100) in flight, to each app. Latency from each request's send. Target: no
 *     ack over 2.5 s; every burst event answered afterwards (waited for, `answer-timeout` s).
 *
 * Events come from 500 people (a workspace, not one user: one person sending 50 messages a second
 * is a flood, refused past USER_MESSAGES_PER_MINUTE).
 *
 * "Answered" is checked thread by thread on the fake Slack (conversations.replies): the bot's
 * reply with the scripted LLM's answer in the thread of each mention.
 *
 *   npx tsx bench/slack-ack.ts [--rate=50] [--seconds=20] [--rounds=5] [--burst=1000] [--concurrency=100]
 *                              [--llm-ms=500] [--answer-timeout=120]
 *                              [--redis=redis://127.0.0.1:6379]   the Redis inbox instead of memory
 *                                                                 (or REDIS_URL / BENCH_REDIS_URL)
 *   BENCH_CPU_PROF=DIR writes a CPU profile of each app process into DIR.
 *
 * Exits 1 when a request failed or a turn went unanswered; latency targets are reported only
 * (they depend on the machine).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { DEFAULT_REDIS_INBOX } from '../src/inbox/redis-inbox.js';
import type { FromChild, ToChild } from './slack-ack/child.js';

const KNOWN = ['rate', 'seconds', 'rounds', 'burst', 'concurrency', 'llm-ms', 'answer-timeout', 'redis'];
const flags = new Map(
  process.argv
    .slice(2)
    .filter((a) => a.startsWith('--'))
    .map((a) => a.slice(2).split(/=(.*)/s, 2) as [string, string]),
);
const unknown = [
  ...process.argv.slice(2).filter((a) => !a.startsWith('--')),
  ...[...flags.keys()].filter((f) => !KNOWN.includes(f)).map((f) => `--${f}`),
];
if (unknown.length) console.warn(`ignoring ${unknown.join(' ')}: use ${KNOWN.map((k) => `--${k}=`).join(', ')}`);
const num = (name: string, fallback: number) => {
  const v = Number(flags.get(name) ?? fallback);
  if (!Number.isFinite(v) || v < 0) throw new Error(`--${name}: a number, not ${flags.get(name)}`);
  return v;
};
const rate = num('rate', 50);
const seconds = num('seconds', 20);
const rounds = Math.max(1, Math.round(num('rounds', 5)));
const burst = Math.round(num('burst', 1_000));
const concurrency = Math.max(1, Math.round(num('concurrency', 100)));
const llmMs = num('llm-ms', 500);
const answerTimeoutMs = num('answer-timeout', 120) * 1000;
const redisUrl = flags.get('redis') || process.env.BENCH_REDIS_URL || process.env.REDIS_URL || undefined;
/** A queue of this run's own in Redis: nothing left over from another run is replayed or deduplicated against. */
const queue = `bench${Date.now()}`;
const mentionShare = 1;
const SECRET = 'bench-signing-secret';
const BOT_USER = 'U0BENCHBOT';
/** What the scripted LLM answers (bench/slack-ack/switchboard.ts); a thread holding it was answered. */
const ANSWER = 'running normally';
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
const slackStats = async () =>
  (await (await fetch(`${slack.origin}/__fake/stats`)).json()) as { messages: number; methods: Record<string, number> };

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
  const proc = fork(new URL(script, import.meta.url).pathname, [JSON.stringify(args)], {
    execArgv: [
      ...process.execArgv,
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const inbox: FromChild[] = [];
  const waiting: ((m: FromChild) => void)[] = [];
  proc.on('message', (m: FromChild) => (waiting.shift() ?? ((x: FromChild) => inbox.push(x)))(m));
  proc.once('exit', (code) => waiting.splice(0).forEach((w) => w({ type: 'failed', message: `exited (${code})` })));
  const next = () =>
    new Promise<FromChild>((resolve) => (inbox.length ? resolve(inbox.shift()!) : waiting.push(resolve)));
  const first = await next();
  if (first.type !== 'ready')
    throw new Error(`${script} did not start: ${first.type === 'failed' ? first.message : first.type}`);
  return { url: first.url, priority: first.priority, proc, ask: (m) => proc.send(m), next };
}

const common = { slackApiUrl: slack.url, botToken: slack.botToken, signingSecret: SECRET };
let apps: Record<'bare' | 'switchboard', AppUnderTest>;
try {
  apps = {
    bare: await startApp('./slack-ack/bare.ts', common),
    switchboard: await startApp('./slack-ack/switchboard.ts', {
      ...common,
      llmMs,
      ...(redisUrl ? { redisUrl, queue } : {}),
    }),
  };
} catch (err) {
  fake.kill();
  throw err;
}
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
        ? { type: 'app_mention', user: 'U0HUMAN' + (i % 500), ts, event_ts: ts, text: '<@' + bot + '> status?', channel: 'C0BENCH' + (i % 20), team: 'T0BENCH' }
        : { type: 'message', channel_type: 'channel', user: 'U0HUMAN' + (i % 500), ts, event_ts: ts, text: 'lunch anyone?', channel: 'C0BENCH' + (i % 20), team: 'T0BENCH' },
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

interface Thread {
  channel: string;
  ts: string;
}
interface Load {
  latencies: number[];
  failures: number;
  /** The mention each event carried: its reply goes in this thread. */
  threads: Thread[];
}

let prefixCounter = 1_700_000_000;
async function load(url: string, count: number, opts: { rate?: number; concurrency?: number } = {}): Promise<Load> {
  const prefix = String(++prefixCounter);
  const args = {
    url,
    secret: SECRET,
    rate: opts.rate ?? rate,
    count,
    prefix,
    bot: BOT_USER,
    share: mentionShare,
    concurrency: opts.concurrency ?? 0,
  };
  const result = await child<{ latencies: number[]; failures: number }>(['-e', GENERATOR, JSON.stringify(args)]).ready;
  // As the generator names them: every event a top-level mention (share 1), 20 channels.
  const threads = Array.from({ length: count }, (_, i) => ({
    channel: `C0BENCH${i % 20}`,
    ts: `${prefix}.${String(i).padStart(6, '0')}`,
  }));
  return { ...result, threads };
}

/** Turns sent to Switchboard so far: each one's reply is a message on the fake Slack. */
let turnsSent = 0;
/** conversations.replies calls made here, not by Switchboard (left out of the calls per answer). */
let checkCalls = 0;

/** The threads in `threads` without the bot's answer yet, asked of the fake Slack 16 at a time. */
async function unanswered(threads: Thread[]): Promise<Thread[]> {
  const missing: Thread[] = [];
  let next = 0;
  const worker = async () => {
    while (next < threads.length) {
      const t = threads[next++]!;
      checkCalls++;
      const res = await fetch(`${slack.url}conversations.replies`, {
        method: 'POST',
        headers: { authorization: `Bearer ${slack.botToken}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ channel: t.channel, ts: t.ts }),
      });
      const body = (await res.json()) as { ok: boolean; messages?: { bot_id?: string; text?: string }[] };
      if (!body.messages?.some((m) => m.bot_id && m.text?.includes(ANSWER))) missing.push(t);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return missing;
}

/**
 * Waits (at most `timeoutMs`) until every thread holds its answer; returns how many do. Cheap
 * polling first (each answer is at least one message, so fewer messages than turns sent means
 * some are still running), then thread by thread.
 */
async function answered(threads: Thread[], timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while ((await slackStats()).messages < turnsSent && Date.now() < deadline) await sleep(100);
  let missing = threads;
  for (;;) {
    missing = await unanswered(missing);
    if (!missing.length || Date.now() > deadline) return threads.length - missing.length;
    await sleep(500);
  }
}

const names = ['bare', 'switchboard'] as const;
const label = { bare: 'bare Bolt', switchboard: 'Switchboard' };
const samples = { bare: [] as number[], switchboard: [] as number[] };
const steadyFailures = { bare: 0, switchboard: 0 };
const cpuMs = { bare: 0, switchboard: 0 };
const loopDelayP99 = { bare: [] as number[], switchboard: [] as number[] };
const perRound = Math.max(1, Math.round((rate * seconds) / rounds));
const roundTimeoutMs = Math.max(15_000, perRound * 20);
let steadyTurns = 0;
let steadyAnswered = 0;

try {
  // Warm-up (JIT, connection pools, PGlite), not measured; its turns are answered before round 1.
  const warm = Math.min(200, perRound);
  await load(targets.bare, warm);
  const warmUp = await load(targets.switchboard, warm);
  turnsSent += warm;
  const warmAnswered = await answered(warmUp.threads, 60_000);
  if (warmAnswered < warm) console.warn(`warm-up: only ${warmAnswered} of ${warm} turns answered in 60 s`);

  // ── phase 1: steady rate, interleaved rounds ──────────────────────────────────────────
  for (let r = 0; r < rounds; r++) {
    for (const name of names) {
      const app = apps[name];
      app.ask({ type: 'measure' });
      const result = await load(targets[name], perRound);
      let got = 0;
      if (name === 'switchboard') {
        turnsSent += perRound;
        steadyTurns += perRound;
        got = await answered(result.threads, roundTimeoutMs);
        steadyAnswered += got;
      }
      app.ask({ type: 'report' });
      const report = await app.next();
      if (report.type !== 'report')
        throw new Error(`${name}: ${report.type === 'failed' ? report.message : report.type}`);
      cpuMs[name] += report.cpuMs;
      loopDelayP99[name].push(report.loopDelayP99Ms);
      samples[name].push(...result.latencies);
      steadyFailures[name] += result.failures;
      if (name === 'switchboard' && got < perRound)
        console.warn(`round ${r + 1}: ${got} of ${perRound} turns answered within ${roundTimeoutMs / 1000} s`);
    }
  }
} catch (err) {
  await shutdown();
  throw err;
}

// ── phase 2: a burst ───────────────────────────────────────────────────────────────────
const bursts = {} as Record<(typeof names)[number], Load & { sentMs: number }>;
let burstAnswered = 0;
let burstAnsweredMs = 0;
for (const name of names) {
  const started = performance.now();
  bursts[name] = {
    ...(await load(targets[name], burst, { rate: 0, concurrency })),
    sentMs: performance.now() - started,
  };
  if (name === 'switchboard') {
    turnsSent += burst;
    const before = performance.now();
    burstAnswered = await answered(bursts[name].threads, answerTimeoutMs);
    burstAnsweredMs = performance.now() - before;
  }
}
const { methods } = await slackStats();

// ── report ─────────────────────────────────────────────────────────────────────────────
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const max = (xs: number[]) => xs.reduce((m, x) => Math.max(m, x), -Infinity);
const f = (x: number, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : '-');
const over = (xs: number[]) => xs.filter((x) => x > 2_500).length;
const inbox = redisUrl ? `Redis inbox (BullMQ, queue ${queue})` : 'in-memory inbox';
console.log(
  `\nSlack ack latency: Switchboard (${inbox}) vs bare Bolt, loopback, scripted LLM ${llmMs} ms, ${burst ? `burst ${burst} at ≤${concurrency} in flight` : 'no burst'}`,
);
console.log(
  `processes at default priority (Switchboard ${apps.switchboard.priority}, bare Bolt ${apps.bare.priority}); ${rounds} interleaved rounds of ${perRound} events at ${rate}/s per app`,
);
const rows: string[][] = [
  ['phase', 'app', 'events', 'failed', 'p50 ms', 'p99 ms', 'max ms', '>2.5 s', 'answered', 'CPU/event', 'loop p99'],
];
for (const name of names) {
  const xs = samples[name];
  rows.push([
    `${rate}/s`,
    label[name],
    String(xs.length),
    String(steadyFailures[name]),
    f(pct(xs, 50)),
    f(pct(xs, 99)),
    f(max(xs)),
    String(over(xs)),
    name === 'switchboard' ? `${steadyAnswered} of ${steadyTurns}` : '-',
    `${f(cpuMs[name] / xs.length)} ms`,
    `${f(max(loopDelayP99[name]), 1)} ms`,
  ]);
}
for (const name of names) {
  const xs = bursts[name].latencies;
  rows.push([
    `burst`,
    label[name],
    String(xs.length),
    String(bursts[name].failures),
    f(pct(xs, 50)),
    f(pct(xs, 99)),
    f(max(xs)),
    String(over(xs)),
    name === 'switchboard' ? `${burstAnswered} of ${burst}` : '-',
    '',
    '',
  ]);
}
const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)));
for (const [i, row] of rows.entries()) {
  console.log(row.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '));
  if (i === 0) console.log(widths.map((w) => '─'.repeat(w)).join('  '));
}
console.log(
  "CPU/event: the app process's CPU time over its rounds (turns included) per event; loop p99: its event-loop delay p99, worst round.",
);
const ours = pct(samples.switchboard, 99);
const bare = pct(samples.bare, 99);
const diff = ours - bare;
const burstMax = max(bursts.switchboard.latencies);
const burstOver = over(bursts.switchboard.latencies);
console.log(
  `burst: sent and acked in ${f(bursts.switchboard.sentMs / 1000, 1)} s (bare Bolt ${f(bursts.bare.sentMs / 1000, 1)} s); ` +
    `${burstAnswered} of ${burst} answered ${f(burstAnsweredMs / 1000, 1)} s after the last ack`,
);
const perTurn = Object.entries({
  ...methods,
  'conversations.replies': (methods['conversations.replies'] ?? 0) - checkCalls,
})
  .filter(([m, n]) => m !== 'auth.test' && n > 0)
  .map(([m, n]) => `${m} ${f(n / Math.max(1, turnsSent))}`);
console.log(`Slack calls per turn (${turnsSent} turns, warm-up included): ${perTurn.join(', ')}`);
console.log('');
const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
console.log(
  `p99 ack at ${rate}/s: ours ${f(ours)} ms, bare ${f(bare)} ms, diff ${diff >= 0 ? '+' : ''}${f(diff)} ms (target ≤ +5 ms) ${verdict(diff <= 5)}`,
);
console.log(`burst: max ack ${f(burstMax, 1)} ms, over 2.5 s: ${burstOver} (target 0) ${verdict(burstOver === 0)}`);
console.log(
  `answered ${steadyAnswered + burstAnswered} of ${steadyTurns + burst} (steady ${steadyAnswered} of ${steadyTurns}, burst ${burstAnswered} of ${burst}); failed requests: ${steadyFailures.switchboard + bursts.switchboard.failures} ours, ${steadyFailures.bare + bursts.bare.failures} bare`,
);
const broken =
  steadyAnswered < steadyTurns ||
  burstAnswered < burst ||
  Object.values(steadyFailures).some(Boolean) ||
  names.some((n) => bursts[n].failures);

await shutdown();
process.exit(broken ? 1 : 0);

/** Stops both apps and the fake; with Redis, deletes this run's queue (BullMQ keeps finished jobs' hashes without a TTL). */
async function shutdown(): Promise<void> {
  for (const app of Object.values(apps)) if (app.proc.exitCode === null) app.ask({ type: 'stop' });
  await Promise.all(
    Object.values(apps).map(
      (app) => new Promise((resolve) => (app.proc.exitCode !== null ? resolve(null) : app.proc.once('exit', resolve))),
    ),
  );
  fake.kill();
  if (!redisUrl) return;
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const { prefix } = DEFAULT_REDIS_INBOX;
    for (const match of [`${prefix}:${queue}:*`, `${prefix}:inbox:${queue}:*`]) {
      for await (const keys of redis.scanStream({ match, count: 1_000 }) as AsyncIterable<string[]>)
        if (keys.length) await redis.unlink(...keys);
    }
  } catch (err) {
    console.warn(
      `could not delete the Redis keys of queue ${queue}: ${err instanceof Error ? err.message : String(err)}`,
    );
  } finally {
    redis.disconnect();
  }
}
