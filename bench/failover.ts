/**
 * Model failover (issue 46, item 1), through the real app over POST /api/chat (SSE) with two
 * loopback providers in this process:
 *
 * - `refused`: the main endpoint refuses connections (a closed port); every turn fails over to
 *   MODEL_FALLBACKS (breaker kept closed). Figure: request sent → first text_delta of the
 *   fallback's answer. Target ≤ 1 s.
 * - `open`: the main endpoint accepts connections and never answers (a black hole; the worst
 *   kind of dead: each call costs OPENAI_TIMEOUT_MS). The first turn times out there and opens
 *   its breaker (MODEL_BREAKER_FAILURES=1); the turns measured after it skip it. Figure: the time
 *   from the request to the fallback receiving its call, minus the same time in `direct` (the
 *   fallback as the only endpoint), the two apps taking turns: what the dead endpoint still
 *   costs a turn (the median of the differences). Target ≤ 5 ms.
 *   The black hole counts the connections it got: none while the breaker is open.
 *
 *   npx tsx bench/failover.ts [--turns=50]
 */
import { createServer, type Server, type Socket } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { createHttpApp } from '../src/adapters/http/app.js';
import { startHttpServer } from '../src/adapters/http/server.js';
import { startFakeOpenAI, type FakeOpenAI } from '../test/fakes/openai-server.js';
import { startHarness } from '../test/helpers/harness.js';
import { parseConfig } from '../src/config/index.js';
import { LlmError, type Completion } from '../src/contract/llm.js';
import { createModelChain } from '../src/provider/model-chain.js';
import { createLogger } from '../src/telemetry/logger.js';

const TOKEN = 'bench-token-for-failover';
const ANSWER = 'The fallback answers this one in a few words.';

export interface FailoverFigures {
  turns: number;
  /** `refused`: request → first streamed text, ms. */
  firstToken: Summary;
  /** Request → the fallback receiving its call, ms: the fallback alone, and behind an open breaker. */
  direct: Summary;
  open: Summary;
  /** `open` minus `direct`, turn by turn (alternating), p50: what the dead endpoint costs a turn while its breaker is open. */
  deadEndpointMs: number;
  /** Connections the black hole got while its breaker was open (should be 0). */
  blackHoleConnections: number;
  /** In process, no network: µs a call spends skipping an endpoint whose breaker is open. */
  skipMicros: number;
}

/**
 * The skip itself, without the network or the app around it: the chain over a transport that
 * answers at once, with and without a first endpoint whose breaker is open, `calls` each.
 */
async function skipCost(calls: number): Promise<number> {
  const done: Completion = { content: 'ok', toolCalls: [], finishReason: 'stop' };
  const log = createLogger('silent');
  const chainOf = (fallbacks: string) =>
    createModelChain(
      parseConfig({
        OPENAI_API_KEY: 'k',
        OPENAI_BASE_URL: 'http://dead.invalid/v1',
        MODEL_FALLBACKS: fallbacks,
        MODEL_BREAKER_FAILURES: '1',
        MODEL_BREAKER_COOLDOWN_MS: '3600000',
      }),
      log,
      {},
      {
        connect: (baseUrl) => baseUrl,
        complete: async (baseUrl) => {
          if (baseUrl.includes('dead')) throw new LlmError('unreachable', 'refused');
          return done;
        },
      },
    );
  const req = { messages: [{ role: 'user' as const, content: 'x' }] };
  const viaOpen = chainOf('[{"baseUrl": "http://alive.invalid/v1", "model": "m"}]');
  await viaOpen.complete(req); // fails on the dead one once: its breaker opens
  const alone = createModelChain(
    parseConfig({ OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'http://alive.invalid/v1' }),
    log,
    {},
    { connect: () => null, complete: async () => done },
  );
  const time = async (chain: { complete: typeof alone.complete }) => {
    const started = performance.now();
    for (let i = 0; i < calls; i++) await chain.complete(req);
    return performance.now() - started;
  };
  await time(alone); // warm up
  await time(viaOpen);
  const a = await time(alone);
  const o = await time(viaOpen);
  return Math.round(((o - a) / calls) * 1000 * 100) / 100;
}

interface Summary {
  p50: number;
  p95: number;
  max: number;
}

/** A port that accepts connections and never says a word. */
async function blackHole(): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let count = 0;
  const server: Server = createServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    connections: () => count,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A closed port: connections are refused. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}/v1`;
}

/** The app with `primaryUrl` first and `fallback` after it; `ask()` resolves with its timings. */
async function startApp(primaryUrl: string, fallback: FakeOpenAI | undefined, env: Record<string, string>) {
  const primaryFake = await startFakeOpenAI({ lenient: true });
  const h = await startHarness({
    llm: primaryFake,
    env: {
      OPENAI_BASE_URL: primaryUrl,
      OPENAI_TIMEOUT_MS: '1000',
      LOG_LEVEL: 'warn',
      ...(fallback ? { MODEL_FALLBACKS: JSON.stringify([{ baseUrl: fallback.url, model: 'gpt-fallback' }]) } : {}),
      ...env,
    },
  });
  const server = await startHttpServer(
    createHttpApp({ agent: h.sb.agent, log: h.sb.log, apiToken: TOKEN, health: () => ({}) }),
    0,
    '127.0.0.1',
  );
  let thread = 0;
  return {
    /** One turn: ms to its first text_delta, and the moment it was sent (performance.now()). */
    async ask(): Promise<{ sentAt: number; firstTextMs: number }> {
      const sentAt = performance.now();
      const res = await fetch(`${server.url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream' },
        body: JSON.stringify({ message: 'Hello?', threadId: `bench-${++thread}` }),
      });
      let firstTextMs = Number.NaN;
      const decoder = new TextDecoder();
      let seen = '';
      for await (const part of res.body!) {
        seen += decoder.decode(part, { stream: true });
        if (Number.isNaN(firstTextMs) && seen.includes('event: text_delta')) firstTextMs = performance.now() - sentAt;
      }
      if (!seen.includes('event: reply')) throw new Error(`the turn was not answered: ${seen.slice(-300)}`);
      return { sentAt, firstTextMs };
    },
    async close() {
      await server.close();
      await h.close();
      await primaryFake.close();
    },
  };
}

export async function runFailoverBench(turns: number): Promise<FailoverFigures> {
  const fallback = await startFakeOpenAI({ lenient: true });
  const respond = () => ({ text: ANSWER });
  const arrivals = (from: number) => fallback.requestsTo('/chat/completions').slice(from);
  try {
    // refused: every turn fails over.
    const refused = await startApp(await closedPort(), fallback, { MODEL_BREAKER_FAILURES: '1000' });
    const firstToken: number[] = [];
    for (let i = 0; i < turns + 3; i++) {
      fallback.script(respond);
      const { firstTextMs } = await refused.ask();
      if (i >= 3) firstToken.push(firstTextMs); // the first turns warm up the code paths
    }
    await refused.close();

    // direct: the fallback alone (the baseline); open: behind a black hole whose breaker is open.
    // Their turns alternate, so a change in the machine's load falls on both alike.
    const direct = await startApp(fallback.url, undefined, {});
    const hole = await blackHole();
    const open = await startApp(hole.url, fallback, {
      MODEL_BREAKER_FAILURES: '1',
      MODEL_BREAKER_COOLDOWN_MS: '600000',
    });
    fallback.script(respond);
    await open.ask(); // times out on the black hole (1 s) and opens its breaker
    const before = hole.connections();
    const directMs: number[] = [];
    const openMs: number[] = [];
    const differences: number[] = [];
    for (let i = 0; i < turns + 3; i++) {
      const d = await timeToFallback(direct, fallback, respond, arrivals);
      const o = await timeToFallback(open, fallback, respond, arrivals);
      if (i < 3) continue; // the first turns warm up the code paths
      directMs.push(d);
      openMs.push(o);
      differences.push(o - d);
    }
    const blackHoleConnections = hole.connections() - before;
    await direct.close();
    await open.close();
    await hole.close();

    const d = summary(directMs);
    const o = summary(openMs);
    return {
      turns,
      firstToken: summary(firstToken),
      direct: d,
      open: o,
      deadEndpointMs: summary(differences).p50,
      blackHoleConnections,
      skipMicros: await skipCost(20_000),
    };
  } finally {
    await fallback.close();
  }
}

/** One turn: ms from the request to the fallback receiving its chat call. */
async function timeToFallback(
  app: Awaited<ReturnType<typeof startApp>>,
  fallback: FakeOpenAI,
  respond: () => { text: string },
  arrivals: (from: number) => { at: number }[],
): Promise<number> {
  const from = fallback.requestsTo('/chat/completions').length;
  fallback.script(respond);
  const { sentAt } = await app.ask();
  const arrived = arrivals(from)[0];
  if (!arrived) throw new Error('the fallback got no call');
  return arrived.at - sentAt;
}

function summary(values: number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { p50: round(at(0.5)), p95: round(at(0.95)), max: round(sorted.at(-1) ?? Number.NaN) };
}

const round = (ms: number) => Math.round(ms * 100) / 100;

async function main(): Promise<void> {
  const flag = process.argv.find((a) => a.startsWith('--turns='));
  const turns = Number(flag?.slice('--turns='.length) ?? 50);
  if (!Number.isInteger(turns) || turns < 1) throw new Error('--turns must be a positive whole number');
  const f = await runFailoverBench(turns);
  const line = (s: Summary) => `p50 ${s.p50} ms, p95 ${s.p95} ms, max ${s.max} ms`;
  console.log(
    `Model failover, ${f.turns} turns a case (load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} CPUs)\n`,
  );
  console.log(
    `main endpoint refusing connections → first token from the fallback: ${line(f.firstToken)} (target ≤ 1000 ms)`,
  );
  console.log(`request → fallback called, fallback alone:                   ${line(f.direct)}`);
  console.log(`request → fallback called, dead endpoint's breaker open:      ${line(f.open)}`);
  console.log(
    `time the dead endpoint costs a turn while its breaker is open (median of the turn-by-turn differences): ${f.deadEndpointMs} ms (target ≤ 5 ms); connections it got: ${f.blackHoleConnections}`,
  );
  console.log(`in process, no network: skipping an endpoint whose breaker is open costs ${f.skipMicros} µs a call`);
  if (f.firstToken.max > 1000 || f.deadEndpointMs > 5 || f.blackHoleConnections > 0) process.exitCode = 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
