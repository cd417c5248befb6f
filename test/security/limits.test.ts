/**
 * Rate limits as users meet them: tool calls per user and tool with guest and member numbers
 * (anonymous HTTP callers are guests, API_TOKEN callers members), the reset time told to the
 * model and shown in `toolCalls`, one count across replicas on Redis, fail closed when the
 * limiter's Redis goes away, and the per-user message flood limit (429 + Retry-After over
 * HTTP), and the limit on `/api/chat` turns in flight (503 + Retry-After). Slack and Discord are
 * in limits.chat.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpApp } from '../../src/adapters/http/app.js';
import { turnsTheHeapHolds } from '../../src/adapters/http/in-flight.js';
import { runToolCall } from '../../src/agent/run-tool.js';
import { parseConfig } from '../../src/config/index.js';
import { createRateLimits, DEFAULT_TOOL_LIMITS, parseToolLimits } from '../../src/security/rate-limits.js';
import { createRedisConnection } from '../../src/net/redis-connection.js';
import { createToolRegistry } from '../../src/agent/registry.js';
import { defineTool } from '../../src/contract/tool.js';
import { captureLogs, message, sentMessages, startHarness, type Harness } from '../helpers/harness.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import { peer } from '../helpers/peer.js';
import { TEST_API_TOKEN } from '../helpers/tokens.js';

const REDIS_URL = process.env.TEST_REDIS_URL;

let runs = 0;
const lookup = defineTool({
  name: 'lookup',
  title: 'Looking up',
  description: 'Looks something up.',
  input: z.object({ q: z.string() }),
  async run(input) {
    runs++;
    return { content: `found ${input.q}` };
  },
});
const LIMITS = JSON.stringify({ lookup: { guest: 1, member: 2, windowHours: 5 } });

interface ChatBody {
  response: string;
  toolCalls: {
    tool: string;
    ok: boolean;
    summary: string;
    error?: { code: string; limit?: number; remaining?: number; resetAt?: string };
  }[];
  error?: { code: string; message: string; resetAt?: string; limit?: number; remaining?: number };
}

async function askWithLookup(
  h: Harness,
  app: ReturnType<typeof createHttpApp>,
  userId: string,
  token?: string,
  address = '127.0.0.1',
): Promise<{ status: number; body: ChatBody }> {
  h.llm.script({ toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] }, { text: 'Done.' });
  const res = await app.request(
    '/api/chat',
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ message: 'look it up', userId }),
    },
    peer(address),
  );
  return { status: res.status, body: (await res.json()) as ChatBody };
}

describe('tool limits per user and tool (memory store)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ tools: [lookup], env: { TOOL_RATE_LIMITS: LIMITS } });
  });
  afterAll(() => h.close());

  it('an anonymous caller (no API_TOKEN) is a guest: 1 call, then a refusal naming the limit and the reset time', async () => {
    const app = createHttpApp({ agent: h.sb.agent, log: h.sb.log });
    const before = runs;
    const first = await askWithLookup(h, app, 'guest-1', undefined, '127.0.0.11');
    expect(first.body.toolCalls[0]).toMatchObject({ tool: 'lookup', ok: true });
    // Another userId from the same address is the same anonymous caller.
    const second = await askWithLookup(h, app, 'guest-1-renamed', undefined, '127.0.0.11');
    expect(second.status).toBe(200); // the turn is answered; the tool call was refused
    const refused = second.body.toolCalls[0]!;
    expect(refused).toMatchObject({
      tool: 'lookup',
      ok: false,
      error: { code: 'rate_limited', limit: 1, remaining: 0 },
    });
    const resetIn = Date.parse(refused.error!.resetAt!) - Date.now();
    expect(resetIn).toBeGreaterThan(4.9 * 3600_000);
    expect(resetIn).toBeLessThanOrEqual(5 * 3600_000);
    expect(runs - before).toBe(1);
    // The model is told the limit and when it resets, so the answer can say "try again after 15:30".
    const told = String(
      sentMessages(h.llm.lastRequest('/chat/completions')!.body).find((m) => m.role === 'tool')?.content,
    );
    const at = new Date(refused.error!.resetAt!).toISOString();
    expect(told).toContain('lookup allows 1 call per 5 hours for guests');
    expect(told).toContain(`It resets at ${at.slice(11, 16)} UTC on ${at.slice(0, 10)}`);
    // Another client (address) has its own count.
    expect((await askWithLookup(h, app, 'guest-2', undefined, '127.0.0.12')).body.toolCalls[0]?.ok).toBe(true);
  });

  it('an API_TOKEN caller is a member: 2 calls, then refused', async () => {
    const app = createHttpApp({ agent: h.sb.agent, log: h.sb.log, apiToken: TEST_API_TOKEN });
    const results = [];
    for (let i = 0; i < 3; i++)
      results.push((await askWithLookup(h, app, 'member-1', TEST_API_TOKEN)).body.toolCalls[0]);
    expect(results.map((r) => r?.ok)).toEqual([true, true, false]);
    expect(results[2]?.error).toMatchObject({ code: 'rate_limited', limit: 2 });
  });

  it('tools without a limit are never counted', async () => {
    const limits = createRateLimits({ log: h.sb.log, toolLimits: parseToolLimits(LIMITS) });
    for (let i = 0; i < 50; i++)
      expect(await limits.tool({ tenantId: 't', platform: 'http', userId: 'u', role: 'guest' }, 'get_hours')).toEqual({
        ok: true,
      });
  });
});

describe('TOOL_RATE_LIMITS', () => {
  it('defaults to seed 001’s numbers per 5 hours', () => {
    expect(parseToolLimits(undefined)).toEqual({
      generate_artifact: { guest: 5, member: 50, windowSeconds: 18_000 },
      generate_image: { guest: 10, member: 100, windowSeconds: 18_000 },
      web_search: { guest: 20, member: 200, windowSeconds: 18_000 },
    });
    expect(DEFAULT_TOOL_LIMITS.web_search).toEqual({ guest: 20, member: 200, windowSeconds: 18_000 });
  });

  it('merges over the defaults; null removes a limit', () => {
    const limits = parseToolLimits(
      '{"web_search":{"guest":2,"member":3,"windowHours":1},"generate_image":null,"lookup":{"guest":0,"member":1}}',
    );
    expect(limits.web_search).toEqual({ guest: 2, member: 3, windowSeconds: 3600 });
    expect(limits.generate_image).toBeUndefined();
    expect(limits.lookup).toEqual({ guest: 0, member: 1, windowSeconds: 18_000 });
    expect(limits.generate_artifact).toEqual(DEFAULT_TOOL_LIMITS.generate_artifact);
  });

  it.each([
    ['{not json', /TOOL_RATE_LIMITS: not valid JSON/],
    ['{"web_search":{"guest":-1,"member":2}}', /TOOL_RATE_LIMITS: web_search.guest/],
    ['{"web_search":{"guest":1,"member":2,"burst":3}}', /TOOL_RATE_LIMITS: web_search: Unrecognized key/],
  ])('refuses %s at start with a message naming the problem', (value, problem) => {
    expect(() => parseConfig({ TOOL_RATE_LIMITS: value })).toThrow(problem);
  });
});

describe('message flood limit over HTTP', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { USER_MESSAGES_PER_MINUTE: '2' } });
  });
  afterAll(() => h.close());

  it('answers 429 with Retry-After and rate_limited once a user is over USER_MESSAGES_PER_MINUTE; others are unaffected', async () => {
    const app = createHttpApp({ agent: h.sb.agent, log: h.sb.log });
    // Anonymous callers are counted by address: a flooder cannot escape by changing its userId.
    const send = (userId: string) =>
      app.request(
        '/api/chat',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ message: 'hi', userId: `${userId}-${Math.random()}` }),
        },
        peer(userId === 'flooder' ? '127.0.0.21' : '127.0.0.22'),
      );
    h.llm.script({ text: 'one' }, { text: 'two' }, { text: 'other' });
    expect((await send('flooder')).status).toBe(200);
    expect((await send('flooder')).status).toBe(200);
    const refused = await send('flooder');
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const body = (await refused.json()) as ChatBody;
    expect(body.error).toMatchObject({
      code: 'rate_limited',
      limit: 2,
      remaining: 0,
      message: expect.stringMatching(/faster than I can answer \(2 a minute\)/),
    });
    expect(Date.parse(body.error!.resetAt!) - Date.now()).toBeLessThanOrEqual(60_000);
    expect(JSON.stringify(body)).not.toContain('notify');
    // A refused message never reached the model.
    expect(h.llm.requestsTo('/chat/completions')).toHaveLength(2);
    expect((await send('someone-else')).status).toBe(200);
  });

  it('the agent marks only the first refusal of a flood for a chat notice', async () => {
    // The two messages within the limit are answered by the model; the three over it never reach it.
    h.llm.script({ text: 'one' }, { text: 'two' });
    const errors = [];
    for (let i = 0; i < 5; i++) {
      for await (const e of h.sb.agent.handle(
        message('hi', { userId: 'chatty', platform: 'slack', workspaceId: 'default' }),
      ))
        if (e.type === 'error') errors.push(e);
    }
    expect(errors.map((e) => e.notify)).toEqual([undefined, false, false]);
    expect(errors.map((e) => e.code)).toEqual(['rate_limited', 'rate_limited', 'rate_limited']);
  });
});

describe('turns in flight over HTTP (API_MAX_TURNS_IN_FLIGHT)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  const chat = (app: ReturnType<typeof createHttpApp>, sse = false) =>
    app.request(
      '/api/chat',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(sse ? { accept: 'text/event-stream' } : {}) },
        body: JSON.stringify({ message: 'hi', userId: `u-${Math.random()}` }),
      },
      peer('127.0.0.1'),
    );

  it('refuses the turn past the limit at once with 503, Retry-After and a clear message; the model never sees it', async () => {
    const { log, logs } = captureLogs();
    const app = createHttpApp({ agent: h.sb.agent, log, maxTurnsInFlight: 2 });
    h.llm.script({ text: 'one', delayMs: 400 }, { text: 'two', delayMs: 400 });
    const responses = await Promise.all([chat(app), chat(app), chat(app), chat(app)]);
    expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 503, 503]);
    const refused = responses.find((r) => r.status === 503)!;
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({
      error: { code: 'overloaded', message: expect.stringMatching(/answering 2 requests already; try again/) },
    });
    expect(h.llm.requestsTo('/chat/completions')).toHaveLength(2);
    // Said once in the log (not once per refusal), with the numbers.
    expect(logs.lines.filter((l) => l.code === 'overloaded')).toEqual([
      expect.objectContaining({ level: 40, inFlight: 2, limit: 2 }),
    ]);
    // Once they are answered, the next one is taken.
    h.llm.script({ text: 'three' });
    expect((await chat(app)).status).toBe(200);
  });

  it('frees the place of a streamed (SSE) turn when its stream ends', async () => {
    const app = createHttpApp({ agent: h.sb.agent, log: h.sb.log, maxTurnsInFlight: 1 });
    h.llm.script({ text: 'streamed' }, { text: 'after' });
    const streamed = await chat(app, true);
    expect(await streamed.text()).toContain('streamed');
    expect((await chat(app)).status).toBe(200);
  });

  it('defaults to what the heap holds: about a thousand turns in a 512 MB container, never fewer than 16', () => {
    const MB = 1024 * 1024;
    expect(turnsTheHeapHolds(259 * MB)).toBeGreaterThanOrEqual(1_000); // Node's heap in a 512 MB cgroup
    expect(turnsTheHeapHolds(130 * MB)).toBeLessThan(300); // 256 MB: 1,000 would die of heap out of memory
    expect(turnsTheHeapHolds(32 * MB)).toBe(16);
    expect(turnsTheHeapHolds()).toBeGreaterThan(16);
  });
});

describe.skipIf(!REDIS_URL)('tool limits on Redis', () => {
  it('two replicas count against one limit', async () => {
    const env = { TOOL_RATE_LIMITS: LIMITS, REDIS_URL: REDIS_URL!, INBOX_QUEUE: `limits${Date.now()}` };
    const [a, b] = [await startHarness({ tools: [lookup], env }), await startHarness({ tools: [lookup], env })];
    try {
      const user = `u-${randomUUID()}`; // keys live 5 hours on the shared Redis: a fresh user per run
      const results = [];
      for (const h of [a, b, a])
        results.push(
          (
            await askWithLookup(
              h,
              createHttpApp({ agent: h.sb.agent, log: h.sb.log, apiToken: TEST_API_TOKEN }),
              user,
              TEST_API_TOKEN,
            )
          ).body.toolCalls[0],
        );
      expect(results.map((r) => r?.ok)).toEqual([true, true, false]);
      expect(results[2]?.error).toMatchObject({ code: 'rate_limited', limit: 2 });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('fails closed: with the limiter’s Redis gone, a limited tool is refused (and logged), an unlimited one still runs', async () => {
    const proxy = await startTcpProxy(Number(new URL(REDIS_URL!).port || 6379));
    const redis = createRedisConnection(proxy.url('redis'), 'command');
    redis.on('error', () => undefined);
    await redis.connect();
    const { log, logs } = captureLogs();
    const limits = createRateLimits({
      log,
      redis,
      toolLimits: parseToolLimits(LIMITS),
      prefix: `test:rl:${randomUUID()}`,
    });
    const free = defineTool({
      name: 'free',
      title: 'Free',
      description: 'Unlimited.',
      input: z.object({}),
      run: async () => ({ content: 'free ran' }),
    });
    const registry = createToolRegistry([lookup, free], 'openai');
    const tenant = { id: 'default', slug: 'default', name: 'Default' } as Parameters<typeof runToolCall>[2]['tenant'];
    const msg = message('x', { userId: `u-${randomUUID()}` });
    const ctx = {
      tenant,
      message: msg,
      signal: new AbortController().signal,
      emit: () => undefined,
    } as unknown as Parameters<typeof runToolCall>[2];
    const call = (name: string) => ({ id: randomUUID(), name, arguments: name === 'lookup' ? '{"q":"y"}' : '{}' });
    try {
      const offered = await registry.offered({ tenant } as Parameters<typeof registry.offered>[0]);
      expect(await runToolCall(call('lookup'), offered, ctx, 1_000, log, limits)).toMatchObject({ ok: true });
      await proxy.down();
      const before = runs;
      const refused = await runToolCall(call('lookup'), offered, ctx, 1_000, log, limits);
      expect(refused).toMatchObject({
        ok: false,
        kind: 'limited',
        code: { code: 'limit_unavailable' },
        error: expect.stringMatching(/^lookup is paused: its usage limit cannot be checked right now/),
      });
      expect(runs).toBe(before);
      expect(
        logs.lines.some((l) => l.msg === 'rate limit store unavailable: limited tool call refused' && l.level === 40),
      ).toBe(true);
      expect(await runToolCall(call('free'), offered, ctx, 1_000, log, limits)).toMatchObject({ ok: true });
    } finally {
      redis.disconnect();
      await proxy.close();
    }
  });
});
