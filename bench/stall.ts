/**
 * Event-loop stalls from one long message (issue 39): text that regexes or the tokenizer could
 * be quadratic on, fed through every path, as the user's text and as the model's answer.
 *
 * Paths: HTTP /api/chat (JSON and SSE); Slack over the Events API with real signatures (the
 * fake Slack Web API), streamed (chat.startStream…) and posted then updated (streaming
 * unavailable); Discord through a real discord.js client on the fake gateway. As `user` text
 * the message is the input (past MAX_MESSAGE_CHARS it is refused at ingress: a 400, a notice);
 * as `model` text the user asks briefly and the fake OpenAI answers with it (streamed back in
 * one delta: the fake splits at whitespace and these runs have none).
 *
 * Each case measures the longest event-loop stall while it runs (perf_hooks
 * monitorEventLoopDelay, 1 ms resolution) and the time until the answer (or the refusal) is
 * in. The app, the fakes and this script share one process and one loop, so the fakes' own
 * work counts too (it is linear in the text). Target: ≤ 50 ms a case at 100,000 characters.
 *
 *   npx tsx bench/stall.ts [--size=100000] [--paths=http,slack-stream,…] [--kinds=cjk,…] [--sources=user,model]
 *   STALL_SIZE=20000 npx tsx bench/stall.ts
 *
 * test/bench/stall.test.ts runs every case at a small size (that each is answered; no timing).
 */
import { createRequire } from 'node:module';
import { availableParallelism, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import type { APIMessage } from 'discord.js';
import { createDiscordAdapter } from '../src/adapters/discord/index.js';
import { createHttpApp } from '../src/adapters/http/app.js';
import { startHttpServer } from '../src/adapters/http/server.js';
import { MAX_MESSAGE_CHARS } from '../src/contract/turn.js';
import { startFakeDiscord, type FakeDiscord } from '../test/fakes/discord/index.js';
import { runAdapter, startHarness, type Harness } from '../test/helpers/harness.js';
import { eventBody, mention, postEvent, sign, startSlackRig, type SlackRig } from '../test/adapters/slack/setup.js';

/**
 * The texts: each one run without a space, as long as the case asks. `variant` makes the prose
 * kinds start elsewhere, so no case finds its pieces in the tokenizer's caches from an earlier one.
 */
export const INPUT_KINDS = {
  /** Chinese prose (the letters of TypeScript's own Simplified Chinese messages). */
  cjk: (size: number, variant = 0) => cycle(rotate(chineseLetters(), variant * 7_919), size),
  /** A spread of emoji, no two neighbours alike. */
  emoji: (size: number, variant = 0) =>
    cycle(
      Array.from({ length: 700 }, (_, i) => String.fromCodePoint(0x1f300 + (((i + variant) * 37) % 700))).join(''),
      size,
    ),
  '[': (size: number) => '['.repeat(size),
  '<!a^': (size: number) => cycle('<!a^', size),
  '<#C1|': (size: number) => cycle('<#C1|', size),
  '<<<': (size: number) => '<'.repeat(size),
  '<@Un|…': (size: number) => {
    let text = '';
    for (let i = 1; text.length < size; i++) text += `<@U${i}|`;
    return text.slice(0, size);
  },
} satisfies Record<string, (size: number, variant?: number) => string>;
export type InputKind = keyof typeof INPUT_KINDS;

export const PATHS = ['http', 'http-sse', 'slack-stream', 'slack-update', 'discord'] as const;
export type StallPath = (typeof PATHS)[number];
export type Source = 'user' | 'model';

export interface StallRow {
  path: StallPath;
  kind: InputKind;
  source: Source;
  size: number;
  /** The longest event-loop delay while the case ran, in ms. */
  maxStallMs: number;
  /**
   * The most CPU time the main thread spent between two turns of a 1 ms timer, in ms: the longest
   * stall's own work, which other processes' load on the machine does not lengthen (the wall
   * delay above also counts the time the scheduler gave to others).
   */
  maxCpuMs: number;
  /** From sending the message to its answer (or refusal) being in. */
  answerMs: number;
  /** `answered`: the reply is in; `refused`: the too-long notice (or HTTP 400); else what went wrong. */
  outcome: string;
}

export interface StallOptions {
  size: number;
  paths?: readonly StallPath[];
  kinds?: readonly InputKind[];
  sources?: readonly Source[];
  /** How long one case may take before it counts as unanswered. */
  caseTimeoutMs?: number;
  /** Called with each row as it is measured. */
  onRow?: (row: StallRow) => void;
}

/** Runs every chosen case, one at a time, each path on its own app. */
export async function runStallCases(options: StallOptions): Promise<StallRow[]> {
  const paths = options.paths ?? PATHS;
  const kinds = options.kinds ?? (Object.keys(INPUT_KINDS) as InputKind[]);
  const sources = options.sources ?? ['user', 'model'];
  const timeoutMs = options.caseTimeoutMs ?? 120_000;
  const rows: StallRow[] = [];
  let cases = 0;
  const groups: [StallPath[], () => Promise<Runner>][] = [
    [paths.filter((p) => p === 'http' || p === 'http-sse'), startHttpRunner],
    [paths.filter((p) => p === 'slack-stream' || p === 'slack-update'), startSlackRunner],
    [paths.filter((p) => p === 'discord'), startDiscordRunner],
  ];
  for (const [groupPaths, start] of groups) {
    if (groupPaths.length === 0) continue;
    const runner = await start();
    try {
      // One short turn first: what the first message pays once (lazy modules, the tokenizer's
      // tables, caches) is not a long message's stall.
      await runner.run(groupPaths[0]!, 'user', 'Hello, warming up.', timeoutMs);
      for (const path of groupPaths)
        for (const source of sources)
          for (const kind of kinds) {
            // Numbered, so no case finds its text's token count remembered from an earlier one.
            const number = String(++cases);
            const text = number + INPUT_KINDS[kind](options.size, cases).slice(number.length);
            const row = await measure({ path, kind, source, size: text.length }, () =>
              runner.run(path, source, text, timeoutMs),
            );
            rows.push(row);
            options.onRow?.(row);
          }
    } finally {
      await runner.close();
    }
  }
  return rows;
}

interface Runner {
  /** Sends one case and resolves with its outcome once the answer (or refusal) is in. */
  run(path: StallPath, source: Source, text: string, timeoutMs: number): Promise<string>;
  close(): Promise<void>;
}

/** What the user says when the model is the one answering with the long text. */
const SHORT_QUESTION = 'Answer with the text, please.';

/**
 * The model's answer for the case: the long text, a short one to a user's text the app reads,
 * none to one it refuses at ingress (the fake LLM is strict: an unused step is an error).
 */
function scriptModel(llm: Harness['llm'], source: Source, text: string): void {
  if (source === 'model') llm.script({ text });
  else if (text.length <= MAX_MESSAGE_CHARS) llm.script({ text: 'Read it.' });
}

async function measure(
  row: Omit<StallRow, 'maxStallMs' | 'maxCpuMs' | 'answerMs' | 'outcome'>,
  run: () => Promise<string>,
): Promise<StallRow> {
  await sleep(50); // the previous case's stragglers
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  let maxCpuMs = 0;
  let cpu = process.threadCpuUsage();
  const ticks = setInterval(() => {
    const spent = process.threadCpuUsage(cpu);
    maxCpuMs = Math.max(maxCpuMs, (spent.user + spent.system) / 1_000);
    cpu = process.threadCpuUsage();
  }, 1);
  const started = performance.now();
  let outcome: string;
  try {
    outcome = await run();
  } catch (err) {
    outcome = `failed: ${err instanceof Error ? err.message : String(err)}`;
  }
  const answerMs = performance.now() - started;
  delay.disable();
  clearInterval(ticks);
  return { ...row, maxStallMs: delay.max / 1e6, maxCpuMs, answerMs, outcome };
}

async function startHttpRunner(): Promise<Runner> {
  const h = await startHarness();
  const token = 'bench-stall-token';
  const server = await startHttpServer(
    createHttpApp({ agent: h.sb.agent, log: h.sb.log, apiToken: token }),
    0,
    '127.0.0.1',
  );
  return {
    async run(path, source, text, timeoutMs) {
      scriptModel(h.llm, source, text);
      const res = await fetch(`${server.url}/api/chat`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${token}`,
          ...(path === 'http-sse' ? { accept: 'text/event-stream' } : {}),
        },
        body: JSON.stringify({ message: source === 'user' ? text : SHORT_QUESTION }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const body = await res.text();
      if (res.status === 400 && source === 'user') return 'refused';
      if (res.status !== 200) return `status ${res.status}`;
      const answered = path === 'http-sse' ? body.includes('event: done') : body.includes('"response"');
      return answered ? 'answered' : 'no answer in the body';
    },
    async close() {
      await server.close();
      await h.close();
    },
  };
}

async function startSlackRunner(): Promise<Runner> {
  const rig: SlackRig = await startSlackRig({ mode: 'http' });
  const refusals = () => rig.h.logs.lines.filter((l) => l.msg === 'slack message over the length limit refused').length;
  return {
    async run(path, source, text, timeoutMs) {
      if (path === 'slack-update') rig.slack.disableStreaming();
      else rig.slack.reset();
      const prefix = mention('').text;
      const post = mention(source === 'user' ? fitted(text, prefix) : SHORT_QUESTION);
      scriptModel(rig.llm, source, text);
      const delivered = rig.deliveredCount();
      const refused = refusals();
      const res = await postEvent(rig.eventsUrl, eventBody(post), sign());
      if (res.status !== 200) return `status ${res.status}`;
      await rig.slack.waitFor(
        () => rig.deliveredCount() > delivered || refusals() > refused,
        'the answer or the notice',
        timeoutMs,
      );
      const replied = () => rig.slack.threadReplies('C0CHAN1', post.ts).length > 0;
      if (refusals() > refused) return (await waitUntil(replied)) ? 'refused' : 'no notice in the thread';
      return replied() ? 'answered' : 'no reply in the thread';
    },
    async close() {
      await rig.close();
    },
  };
}

async function startDiscordRunner(): Promise<Runner> {
  const discord: FakeDiscord = await startFakeDiscord();
  const h: Harness = await startHarness({ env: discord.env() });
  const stop = await runAdapter(h.sb, createDiscordAdapter(h.sb)!);
  const count = (msg: string) => h.logs.lines.filter((l) => l.msg === msg).length;
  const fromBot = (m: APIMessage) => m.author.id === discord.world.bot.id;
  return {
    async run(_path, source, text, timeoutMs) {
      scriptModel(h.llm, source, text);
      const delivered = count('discord turn delivered');
      const refused = count('discord message over the length limit refused');
      const prefix = `<@${discord.world.bot.id}> `;
      const asked = discord.say({
        content: source === 'user' ? fitted(text, prefix) : SHORT_QUESTION,
        mention: true,
      });
      await discord.waitFor(
        () =>
          count('discord turn delivered') > delivered ||
          count('discord message over the length limit refused') > refused,
        'the answer or the notice',
        timeoutMs,
      );
      if (count('discord message over the length limit refused') > refused) {
        const notice = () =>
          discord
            .messagesIn(discord.world.general.id)
            .some((m) => fromBot(m) && m.message_reference?.message_id === asked.id);
        return (await waitUntil(notice)) ? 'refused' : 'no notice';
      }
      const replies = discord.messagesIn(asked.id).filter(fromBot);
      if (replies.length === 0) return 'no reply in the thread';
      return replies.every((m) => m.content.startsWith('⚠️')) ? 'a warning' : 'answered';
    },
    async close() {
      await stop();
      await h.close();
      await discord.close();
    },
  };
}

/** A long case's message is its size with the mention included; a short one is sent as it is. */
function fitted(text: string, prefix: string): string {
  return text.length > 1_000 ? text.slice(0, text.length - prefix.length) : text;
}

/** Polls `check` for up to `ms` (a notice is posted just after its log line). */
async function waitUntil(check: () => boolean, ms = 5_000): Promise<boolean> {
  for (const end = performance.now() + ms; performance.now() < end; await sleep(10)) if (check()) return true;
  return check();
}

function rotate(text: string, by: number): string {
  const at = by % text.length;
  return text.slice(at) + text.slice(0, at);
}

function cycle(unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

let letters: string | undefined;
function chineseLetters(): string {
  if (letters === undefined) {
    const require = createRequire(import.meta.url);
    const messages = require('typescript/lib/zh-cn/diagnosticMessages.generated.json') as Record<string, string>;
    letters = Object.values(messages)
      .join('')
      .replace(/[^\p{L}]|[A-Za-z]/gu, '');
  }
  return letters;
}

function formatTable(rows: StallRow[]): string {
  const header = ['path', 'source', 'input', 'size', 'max stall ms', 'its CPU ms', 'answer ms', 'outcome'];
  const lines = rows.map((r) => [
    r.path,
    r.source,
    r.kind,
    String(r.size),
    r.maxStallMs.toFixed(1),
    r.maxCpuMs.toFixed(1),
    r.answerMs.toFixed(0),
    r.outcome,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const row = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  return [row(header), row(widths.map((w) => '-'.repeat(w))), ...lines.map(row)].join('\n');
}

async function main(): Promise<void> {
  const flags = new Map(
    process.argv
      .slice(2)
      .filter((a) => a.startsWith('--'))
      .map((a) => a.slice(2).split(/=(.*)/s, 2) as [string, string]),
  );
  const list = <T extends string>(name: string, all: readonly T[]): T[] | undefined => {
    const value = flags.get(name);
    if (!value) return undefined;
    const chosen = value.split(',');
    const unknown = chosen.filter((c) => !all.includes(c as T));
    if (unknown.length) throw new Error(`--${name}: unknown ${unknown.join(', ')} (one of ${all.join(', ')})`);
    return chosen as T[];
  };
  const size = Number(flags.get('size') ?? process.env.STALL_SIZE ?? 100_000);
  if (!Number.isInteger(size) || size < 1) throw new Error('--size must be a positive whole number');
  const rows = await runStallCases({
    size,
    paths: list('paths', PATHS),
    kinds: list('kinds', Object.keys(INPUT_KINDS) as InputKind[]),
    sources: list('sources', ['user', 'model'] as const),
    onRow: (r) =>
      process.stderr.write(
        `${r.path} ${r.source} ${r.kind}: ${r.maxStallMs.toFixed(1)} ms stall (${r.maxCpuMs.toFixed(1)} ms CPU), ${r.outcome}\n`,
      ),
  });
  console.log(`\nLongest event-loop stall per case, ${size.toLocaleString('en-US')} characters (target ≤ 50 ms)\n`);
  console.log(formatTable(rows));
  const over = rows.filter((r) => r.maxStallMs > 50);
  const overCpu = rows.filter((r) => r.maxCpuMs > 50);
  const unanswered = rows.filter((r) => r.outcome !== 'answered' && r.outcome !== 'refused');
  const load = loadavg()[0]!.toFixed(1);
  console.log(
    `\n${over.length} of ${rows.length} cases over 50 ms (${overCpu.length} over 50 ms of the main thread's CPU); ${unanswered.length} unanswered. Load average ${load} on ${availableParallelism()} CPUs.`,
  );
  if (unanswered.length) process.exitCode = 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
