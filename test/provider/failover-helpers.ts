import { createHttpApp } from '../../src/adapters/http/app.js';
import { startHttpServer, type RunningServer } from '../../src/adapters/http/server.js';
import { metrics } from '../../src/telemetry/metrics.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { testTools } from '../helpers/test-tools.js';

export const TOKEN = 'api-token-for-failover-tests';
/** The fallback's key, read from the variable MODEL_FALLBACKS names. */
export const FALLBACK_KEY = 'sk-fallback-key-for-tests';
export const FALLBACK_KEY_ENV = 'MODEL_KEY_FAILOVER_TEST';

/** The app with two loopback providers: `primary` (OPENAI_BASE_URL) and `fallback` (MODEL_FALLBACKS). */
export interface ChainRig {
  h: Harness;
  primary: FakeOpenAI;
  fallback: FakeOpenAI;
  server: RunningServer;
  /** POST /api/chat as JSON. */
  ask(message: string, threadId?: string): Promise<{ status: number; body: Record<string, unknown> }>;
  /** POST /api/chat as SSE: every event in order. */
  askStreamed(message: string): Promise<{ event: string; data: Record<string, unknown> }[]>;
  close(): Promise<void>;
}

export async function startChainRig(
  opts: { env?: Record<string, string>; primaryUrl?: string } = {},
): Promise<ChainRig> {
  process.env[FALLBACK_KEY_ENV] = FALLBACK_KEY;
  const primary = await startFakeOpenAI();
  // The fallback takes only its own key: a request with the main endpoint's would get a 401.
  const fallback = await startFakeOpenAI({ apiKey: FALLBACK_KEY });
  const h = await startHarness({
    llm: primary,
    tools: testTools,
    env: {
      // Short enough that a stalled stream fails over within the test's patience.
      OPENAI_TIMEOUT_MS: '1000',
      MODEL_FALLBACKS: JSON.stringify([{ baseUrl: fallback.url, model: 'gpt-fallback', apiKeyEnv: FALLBACK_KEY_ENV }]),
      ...(opts.primaryUrl ? { OPENAI_BASE_URL: opts.primaryUrl } : {}),
      ...opts.env,
    },
  });
  const app = createHttpApp({ agent: h.sb.agent, log: h.sb.log, apiToken: TOKEN, health: () => ({}) });
  const server = await startHttpServer(app, 0, '127.0.0.1');
  const post = (message: string, accept: string, threadId?: string) =>
    fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, accept },
      body: JSON.stringify({ message, ...(threadId ? { threadId } : {}) }),
    });
  return {
    h,
    primary,
    fallback,
    server,
    async ask(message, threadId) {
      const res = await post(message, 'application/json', threadId);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    async askStreamed(message) {
      const res = await post(message, 'text/event-stream');
      return parseSse(await res.text());
    },
    async close() {
      await server.close();
      await h.close();
      await primary.close();
      await fallback.close();
      delete process.env[FALLBACK_KEY_ENV];
    },
  };
}

function parseSse(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .split('\n\n')
    .filter((chunk) => chunk.trim())
    .map((chunk) => {
      const event = /^event: (.*)$/m.exec(chunk)?.[1] ?? 'message';
      const data = chunk
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

/** The text the user saw stream, in order. */
export const streamedText = (events: { event: string; data: Record<string, unknown> }[]) =>
  events
    .filter((e) => e.event === 'text_delta')
    .map((e) => String(e.data.text))
    .join('');

/** The current value of switchboard_model_requests_total for one endpoint and outcome. */
export async function modelRequests(endpoint: string, outcome: string): Promise<number> {
  const { values } = await metrics.modelRequests.get();
  return values.find((v) => v.labels.endpoint === endpoint && v.labels.outcome === outcome)?.value ?? 0;
}

/** `model@host` of a fake, as the chain labels it. */
export const labelOf = (model: string, fake: { url: string }) => `${model}@${new URL(fake.url).host}`;
