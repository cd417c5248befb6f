import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../src/adapters/http/app.js';
import { MAX_MESSAGE_CHARS } from '../../src/contract/turn.js';
import { startHttpServer, type RunningServer } from '../../src/adapters/http/server.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { testTools } from '../helpers/test-tools.js';

let llm: FakeOpenAI;
let h: Harness;
let server: RunningServer;
const TOKEN = 'api-token-for-tests';

beforeAll(async () => {
  llm = await startFakeOpenAI();
  h = await startHarness({ llm, tools: testTools });
  const app = createHttpApp({
    agent: h.sb.agent,
    log: h.sb.log,
    apiToken: TOKEN,
    health: () => ({ data: h.sb.data.kind }),
  });
  server = await startHttpServer(app, 0, '127.0.0.1');
});
afterAll(async () => {
  await server.close();
  await h.close();
  await llm.close();
});
beforeEach(() => llm.reset());

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** Parses an SSE body into its events. */
function parseSse(text: string): { event: string; data: unknown }[] {
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
      return { event, data: JSON.parse(data) as unknown };
    });
}

describe('HTTP adapter', () => {
  it('answers /healthz', async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, data: 'pglite' });
  });

  it('runs a tool-using turn over POST /api/chat and returns the documented shape', async () => {
    llm.script({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Aarhus' } }] }, { text: 'Rainy in Aarhus.' });
    const res = await post({ message: 'Weather in Aarhus?', userId: 'u-42' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      threadId: expect.any(String),
      response: 'Rainy in Aarhus.',
      blocks: [{ type: 'fields' }],
      toolCalls: [{ tool: 'get_weather', arguments: { city: 'Aarhus' }, ok: true }],
      usage: { promptTokens: expect.any(Number), completionTokens: expect.any(Number) },
      lastCity: 'Aarhus',
    });
    // Same thread on the next request: the model sees the history.
    llm.script({ text: 'Still rainy.' });
    await post({ message: 'And now?', threadId: body.threadId });
    const sent = llm.lastRequest('/chat/completions')!.body.messages as { content: unknown }[];
    expect(sent.map((m) => m.content)).toContain('Rainy in Aarhus.');
  });

  it('streams the same turn as SSE, one event per turn event, ending with done', async () => {
    llm.script({ toolCalls: [{ name: 'get_time', arguments: { tz: 'UTC' } }] }, { text: 'It is noon.' });
    const res = await post({ message: 'time?' }, { accept: 'text/event-stream' });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const events = parseSse(await res.text());
    const names = events.map((e) => e.event).filter((n) => n !== 'text_delta');
    expect(names).toEqual(['thread', 'status', 'tool_call_start', 'tool_result', 'reply', 'done']);
    expect(events.find((e) => e.event === 'tool_call_start')?.data).toMatchObject({
      tool: 'get_time',
      title: 'Reading the clock',
    });
    expect(events.find((e) => e.event === 'reply')?.data).toMatchObject({ text: 'It is noon.' });
  });

  it('treats a typed /ask as the ask command', async () => {
    llm.script({ text: 'Answered.' });
    const res = await post({ message: '/ask   what changed this week?' });
    expect(((await res.json()) as { response: string }).response).toBe('Answered.');
    const sent = llm.lastRequest('/chat/completions')!.body.messages as { role: string; content: unknown }[];
    expect(sent.at(-1)).toEqual({ role: 'user', content: 'what changed this week?' });
  });

  it('rejects bad requests with 400 and a JSON error', async () => {
    const cases: [unknown, string][] = [
      ['not json', 'bad_request'],
      [{}, 'bad_request'],
      [{ message: '   ' }, 'bad_request'],
      [{ message: 42 }, 'validation_failed'],
      [{ message: 'x', threadId: 'bad thread id!' }, 'validation_failed'],
    ];
    for (const [body, code] of cases) {
      const res = await post(body);
      expect(res.status).toBe(400);
      const json = (await res.json()) as { error: { code: string; message: string } };
      expect(json.error.code).toBe(code);
      expect(json.error.message.length).toBeGreaterThan(5);
    }
  });

  it('refuses a message over MAX_MESSAGE_CHARS (the limit Slack and Discord share) with 400', async () => {
    const res = await post({ message: '长'.repeat(MAX_MESSAGE_CHARS + 1) });
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: { code: string; message: string } };
    expect(json.error.code).toBe('validation_failed');
    expect(json.error.message).toContain('longer than 20,000 characters');
  });

  it('requires the bearer token when API_TOKEN is set', async () => {
    const res = await post({ message: 'hi' }, { authorization: 'Bearer wrong' });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  });

  it('answers 502 with a clear message when the LLM is unreachable', async () => {
    const dead = await startFakeOpenAI();
    await dead.close();
    const local = await startHarness({ llm: dead, tools: testTools });
    const app = createHttpApp({ agent: local.sb.agent, log: local.sb.log });
    const s = await startHttpServer(app, 0, '127.0.0.1');
    const res = await fetch(`${s.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hi' }),
    });
    await s.close();
    await local.close();
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({
      error: { code: 'llm_unavailable', message: expect.stringMatching(/language model/) },
    });
  });
});
