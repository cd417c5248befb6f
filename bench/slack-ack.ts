/**
 * Slack ack latency: signed `app_mention` events at a fixed rate against Switchboard's Slack
 * adapter (HTTP mode as `npm start` runs it: the ingress thread verifies and acks; the main
 * thread's Bolt app runs every event as a full turn after its ack: dedup, thread following,
 * tenant, thread lock and state, an in-process LLM that answers after `llmMs` without using
 * CPU, status + reply posted to Slack) and against a bare Bolt app in the same process that
 * acks the same events and does nothing else. Same run, interleaved rounds. Server CPU/event
 * counts the whole process (both threads); the event-loop delay is the main thread's.
 *
 *   npx tsx bench/slack-ack.ts [rate=200] [secondsPerRound=2] [rounds=2] [llmMs=500] [mentionShare=1]
 *
 * `mentionShare` < 1 mixes in ordinary channel messages (what a bot in busy channels mostly
 * receives: acked, read and ignored); the default makes every event a full answered turn.
 *
 * Target: our p50 and p99 ≤ 1.25 × the bare app's, and our p99 ≤ 50 ms.
 *
 * The load generator and the fake Slack Web API each run in their own process (Slack's CPU is
 * not ours, and a sender sharing our process would be slowed by the very work it measures).
 * Latency runs from each request's scheduled send time to its response headers, so a sender
 * that falls behind shows up in the figures instead of hiding server delays.
 */
import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { App, LogLevel } from '@slack/bolt';
import type { Completion, CompletionRequest, LlmClient } from '../src/agent/llm-types.js';
import { createHttpApp } from '../src/adapters/http/app.js';
import { startIngress } from '../src/adapters/http/ingress.js';
import { createSlackAdapter } from '../src/adapters/slack/index.js';
import { createSwitchboard } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { silentLogger } from '../src/logger.js';

const rate = Number(process.argv[2] ?? 200);
const seconds = Number(process.argv[3] ?? 2);
const rounds = Number(process.argv[4] ?? 2);
const llmMs = Number(process.argv[5] ?? 500);
const mentionShare = Math.min(1, Math.max(0, Number(process.argv[6] ?? 1)));
/** Whether event `i` of a round is a mention (the generator uses the same rule). */
const isMention = (i: number) => Math.floor((i + 1) * mentionShare) > Math.floor(i * mentionShare);
const mentionsIn = (count: number) => Array.from({ length: count }, (_, i) => i).filter(isMention).length;
const SECRET = 'bench-signing-secret';
const BOT_USER = 'U0BENCHBOT';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A model that thinks for `llmMs` (timers, no CPU) and then streams a short answer. */
class SleepyLlm implements LlmClient {
  readonly model = 'sleepy';
  async complete(req: CompletionRequest): Promise<Completion> {
    const words = ['All', ' systems', ' are', ' running', ' normally.'];
    await sleep(llmMs);
    for (const w of words) {
      req.onText?.(w);
      await sleep(10);
    }
    return { content: words.join(''), toolCalls: [], finishReason: 'stop', usage: { promptTokens: 50, completionTokens: 5 } };
  }
  async embed(): Promise<number[][]> {
    return [];
  }
}

/** Starts a child process and resolves with the JSON of its first stdout line. */
function child<T>(args: string[]): { ready: Promise<T>; kill: () => void } {
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = new Promise<T>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once('line', (l) => resolve(JSON.parse(l) as T));
    proc.once('exit', (code) => reject(new Error(`child exited (${code})`)));
  });
  return { ready, kill: () => proc.kill('SIGTERM') };
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
const slackMessages = async () => ((await (await fetch(`${slack.origin}/__fake/stats`)).json()) as { messages: number }).messages;

// ── Switchboard ─────────────────────────────────────────────────────────────────────────
const config = parseConfig({
  OPENAI_API_KEY: 'sk-bench',
  PGLITE_MEMORY: '1',
  LOG_LEVEL: 'silent',
  SLACK_BOT_TOKEN: slack.botToken,
  SLACK_SIGNING_SECRET: SECRET,
  SLACK_API_URL: slack.url,
});
const sb = await createSwitchboard(config, silentLogger(), { llm: new SleepyLlm(), tools: [] });
const adapter = createSlackAdapter(sb)!;
const ours = await startIngress({ app: createHttpApp({ agent: sb.agent, log: sb.log }), port: 0, host: '127.0.0.1', slack: adapter.ingress!, log: sb.log });
await adapter.start();
await ours.slackReady;

// ── bare Bolt ───────────────────────────────────────────────────────────────────────────
const bare = new App({ token: slack.botToken, signingSecret: SECRET, clientOptions: { slackApiUrl: slack.url }, logLevel: LogLevel.ERROR });
bare.event('app_mention', async () => undefined);
const bareServer = (await bare.start({ port: 0, host: '127.0.0.1' })) as Server;
const targets = {
  bare: `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}/slack/events`,
  switchboard: `${ours.url}/slack/events`,
};

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
const loopDelay = { bare: monitorEventLoopDelay({ resolution: 5 }), switchboard: monitorEventLoopDelay({ resolution: 5 }) };
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
    loopDelay[name].enable();
    const cpu = process.cpuUsage();
    const result = await load(targets[name], perRound);
    if (name === 'switchboard') await drain((replies += mentionsIn(perRound)));
    const used = process.cpuUsage(cpu);
    cpuMs[name] += (used.user + used.system) / 1000;
    loopDelay[name].disable();
    samples[name].push(...result.latencies);
    failures += result.failures;
  }
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const ms = (x: number) => `${x.toFixed(2).padStart(7)} ms`;
const mix = mentionShare === 1 ? 'app_mention events (each a full turn)' : `events (${Math.round(mentionShare * 100)}% app_mentions answered, the rest channel chatter)`;
console.log(`Slack ack latency at ${rate} signed ${mix}/s, ${rounds} × ${seconds} s per app (${samples.bare.length} events each), loopback, LLM ${llmMs} ms`);
for (const name of names) {
  const xs = samples[name];
  const loop = loopDelay[name];
  console.log(
    `${(name === 'bare' ? 'bare Bolt' : 'Switchboard').padEnd(12)} p50 ${ms(pct(xs, 50))}   p99 ${ms(pct(xs, 99))}   max ${ms(Math.max(...xs))}` +
      `   | server CPU/event ${(cpuMs[name] / xs.length).toFixed(2)} ms, event-loop delay p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms`,
  );
}
const r50 = pct(samples.switchboard, 50) / pct(samples.bare, 50);
const r99 = pct(samples.switchboard, 99) / pct(samples.bare, 99);
console.log(`ratio        p50 ${r50.toFixed(2)}×   p99 ${r99.toFixed(2)}×   (target ≤ 1.25×, and our p99 ≤ 50 ms)   failed requests: ${failures}`);
console.log(`Switchboard posted ${await slackMessages()} replies for ${replies} mentions (every turn ran to its reply)`);

await ours.close();
await adapter.stop();
await bare.stop();
await sb.close();
fake.kill();
process.exit(0);
