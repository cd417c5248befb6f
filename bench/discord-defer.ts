/**
 * Interaction deferral latency of the Discord adapter: from the moment the fake gateway
 * writes INTERACTION_CREATE to the socket until the fake REST receives the interaction
 * callback (the deferral), through a real discord.js client. Discord drops an interaction
 * not acknowledged within 3 s. The model answers instantly in process, so the turns that
 * follow each deferral (progress and final edits) load the same event loop, as in production.
 *
 *   npx tsx bench/discord-defer.ts [interactions=200]
 *   REDIS_URL=redis://127.0.0.1:6379 npx tsx bench/discord-defer.ts   # dedup through Redis
 *
 * Two runs: one interaction at a time (idle), then one every 25 ms (40/s, turns overlapping).
 */
import type { Completion, CompletionRequest, LlmClient } from '../src/contract/llm.js';
import { createDiscordAdapter } from '../src/adapters/discord/index.js';
import { createSwitchboard } from '../src/wiring/app.js';
import { parseConfig } from '../src/config/index.js';
import { silentLogger } from '../src/telemetry/logger.js';
import { startFakeDiscord, type InteractionRecord } from '../test/fakes/discord/index.js';
import { openPgliteTestPort } from '../test/helpers/db.js';

const count = Number(process.argv[2] ?? 200);
const WARMUP = 20;

class InstantLlm implements LlmClient {
  readonly model = 'instant';
  async complete(req: CompletionRequest): Promise<Completion> {
    req.onText?.('Pong.');
    return { content: 'Pong.', toolCalls: [], finishReason: 'stop', usage: { promptTokens: 10, completionTokens: 1 } };
  }
  async embed(): Promise<number[][]> {
    return [];
  }
}

const discord = await startFakeDiscord();
const data = await openPgliteTestPort({ seedDemo: false });
const config = parseConfig({
  OPENAI_API_KEY: 'sk-bench',
  LOG_LEVEL: 'silent',
  ...discord.env(),
  ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
});
const sb = await createSwitchboard(config, silentLogger(), { tools: [], llm: new InstantLlm(), data });
const adapter = createDiscordAdapter(sb)!;
await adapter.start();
await sb.inbox.start(); // the turns run, as under npm start

const acknowledged = (it: InteractionRecord) => discord.waitFor(() => it.callback, 'the deferral', 10_000);
const latency = (it: InteractionRecord) => it.callback!.at - it.dispatchedAt;

async function idle(n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const it = discord.command('ask', { question: `ping ${i}` });
    await acknowledged(it);
    out.push(latency(it));
  }
  return out;
}

async function loaded(n: number, everyMs: number): Promise<number[]> {
  const sent: InteractionRecord[] = [];
  for (let i = 0; i < n; i++) {
    sent.push(discord.command('ask', { question: `load ${i}` }));
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  await Promise.all(sent.map(acknowledged));
  return sent.map(latency);
}

function report(label: string, samples: number[]): void {
  const sorted = [...samples].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(2);
  console.log(
    `${label.padEnd(34)} n=${sorted.length}  p50 ${pct(50)} ms   p99 ${pct(99)} ms   max ${sorted.at(-1)!.toFixed(2)} ms`,
  );
}

await idle(WARMUP);
const one = await idle(count);
const busy = await loaded(count, 25);
await discord.waitFor(() => performance.now() - (discord.calls.at(-1)?.at ?? 0) > 1_500, 'the turns to finish', 60_000);
const refused = discord.calls.filter((c) => c.status >= 400);

console.log(
  `Discord interaction deferral (INTERACTION_CREATE sent → callback received), ${sb.kv.backend} kv, discord.js client`,
);
report('one at a time', one);
report('40/s with turns overlapping', busy);
console.log(
  `refused requests: ${refused.length}${
    refused.length
      ? ` (${refused
          .map((c) => `${c.method} ${c.path} ${c.status}`)
          .slice(0, 3)
          .join('; ')})`
      : ''
  }`,
);

await adapter.stop();
await sb.inbox.stop(5_000);
await adapter.close?.();
await sb.close();
await data.close();
await discord.close();
process.exit(0);
