import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/contract/tool.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import {
  collect,
  errorOf,
  message,
  replyOf,
  sentMessages,
  sentToolNames,
  startHarness,
  type Harness,
} from '../helpers/harness.js';
import { testTools } from '../helpers/test-tools.js';
import { unfence } from '../helpers/fence.js';

let llm: FakeOpenAI;
let h: Harness;
let thread = 0;
const nextThread = () => `thread-${++thread}`;

beforeAll(async () => {
  llm = await startFakeOpenAI();
  h = await startHarness({ llm, tools: testTools, now: () => new Date('2026-11-21T12:00:00Z') });
});
afterAll(async () => {
  await h.close();
  await llm.close();
});
beforeEach(() => llm.reset());

describe('agent loop', () => {
  it('runs a multi-step tool-using turn and streams its events in order', async () => {
    llm.script(
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { toolCalls: [{ name: 'get_time', arguments: { tz: 'Europe/Oslo' } }] },
      { text: 'It is raining in Oslo.' },
    );
    const events = await collect(h.sb.agent.handle(message('weather in Oslo?', { threadId: nextThread() })));
    const types = events.map((e) => e.type).filter((t) => t !== 'text_delta');
    expect(types).toEqual([
      'status',
      'tool_call_start',
      'tool_result',
      'tool_call_start',
      'tool_result',
      'reply',
      'done',
    ]);
    expect(replyOf(events)?.text).toBe('It is raining in Oslo.');
    expect(replyOf(events)?.blocks).toEqual([
      {
        type: 'fields',
        fields: [
          { label: 'City', value: 'Oslo' },
          { label: 'Weather', value: '18°, light rain' },
        ],
      },
    ]);
    const deltas = events
      .filter((e) => e.type === 'text_delta')
      .map((e) => (e as { text: string }).text)
      .join('');
    expect(deltas).toBe('It is raining in Oslo.');

    const requests = llm.requestsTo('/chat/completions');
    expect(requests).toHaveLength(3);
    const second = sentMessages(requests[1]!.body);
    // Every tool result reaches the model fenced as data.
    expect(second.at(-1)).toMatchObject({
      role: 'tool',
      content: '<tool_output tool="get_weather">\nOslo: 18°C, light rain\n</tool_output>',
    });
    expect(unfence(second.at(-1)!.content)).toBe('Oslo: 18°C, light rain');
    const third = sentMessages(requests[2]!.body);
    expect(third.at(-1)?.content).toContain('2026-11-21T12:00:00.000Z');
    const done = events.at(-1);
    expect(done).toMatchObject({ type: 'done', data: { lastCity: 'Oslo' } });
    expect(done?.type === 'done' && done.usage.promptTokens).toBeGreaterThan(0);
    expect(done?.type === 'done' && done.toolCalls.map((c) => c.tool)).toEqual(['get_weather', 'get_time']);
  });

  it('logs one info line per turn (platform, tenant, outcome, ms, tokens); its steps and tool calls at debug', async () => {
    llm.script(
      {
        toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
        usage: { prompt_tokens: 30, completion_tokens: 4 },
      },
      { text: 'Rainy.', usage: { prompt_tokens: 40, completion_tokens: 3 } },
    );
    const from = h.logs.lines.length;
    await collect(h.sb.agent.handle(message('weather in Oslo?', { threadId: nextThread() })));
    const lines = h.logs.lines.slice(from);
    const info = lines.filter((l) => Number(l.level) >= 30);
    expect(info).toEqual([
      expect.objectContaining({
        msg: 'turn',
        platform: 'http',
        tenant: expect.any(String),
        outcome: 'answered',
        ms: expect.any(Number),
        promptTokens: 70,
        completionTokens: 7,
        tools: 1,
      }),
    ]);
    expect(lines.filter((l) => l.msg === 'agent step' || l.msg === 'tool call').map((l) => l.level)).toEqual([
      20, 20, 20,
    ]);
  });

  it('offers tools as strict JSON Schema and only those whose offer() is true', async () => {
    llm.script(
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Bergen' } }] },
      { text: 'ok' },
      { text: 'ok again' },
    );
    const threadId = nextThread();
    await collect(h.sb.agent.handle(message('weather?', { threadId })));
    const [first, second] = llm.requestsTo('/chat/completions');
    expect(sentToolNames(first!.body)).not.toContain('forecast_tomorrow');
    expect(sentToolNames(second!.body)).toContain('forecast_tomorrow');
    const weather = (first!.body.tools as { function: { strict?: boolean; parameters: { required: string[] } } }[])[0]!;
    expect(weather.function.strict).toBe(true);
    expect(weather.function.parameters.required).toEqual(['city', 'units']);
    // The thread remembers: the next turn offers the follow-up tool from the start.
    await collect(h.sb.agent.handle(message('and tomorrow?', { threadId })));
    expect(sentToolNames(llm.requestsTo('/chat/completions')[2]!.body)).toContain('forecast_tomorrow');
  });

  it('runs the tool calls of one step concurrently', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const started: string[] = [];
    const waiter = (name: string) =>
      defineTool({
        name,
        title: name,
        description: 'waits for its sibling',
        input: z.object({}),
        async run() {
          started.push(name);
          if (started.length === 2) release();
          await gate; // deadlocks (and times out) if the calls ran one after the other
          return { content: `${name} done` };
        },
      });
    const local = await startHarness({ llm, tools: [waiter('left'), waiter('right')] });
    llm.script(
      {
        toolCalls: [
          { name: 'left', arguments: {} },
          { name: 'right', arguments: {} },
        ],
      },
      { text: 'both done' },
    );
    const events = await collect(local.sb.agent.handle(message('go', { threadId: nextThread() })));
    await local.close();
    expect(replyOf(events)?.text).toBe('both done');
    expect(events.filter((e) => e.type === 'tool_result').every((e) => e.type === 'tool_result' && e.ok)).toBe(true);
  });

  it('sends bad JSON, schema failures, unknown tools and tool errors back to the model as fixable errors', async () => {
    llm.script(
      { toolCalls: [{ name: 'get_weather', arguments: '{"city": "Oslo"' }] },
      { toolCalls: [{ name: 'get_weather', arguments: { city: 42 } }] },
      { toolCalls: [{ name: 'no_such_tool', arguments: {} }] },
      { text: 'Sorry, I could not look that up.' },
    );
    const events = await collect(h.sb.agent.handle(message('weather?', { threadId: nextThread() })));
    const reqs = llm.requestsTo('/chat/completions');
    expect(unfence(sentMessages(reqs[1]!.body).at(-1)?.content)).toMatch(/^Error: Arguments are not valid JSON/);
    expect(unfence(sentMessages(reqs[2]!.body).at(-1)?.content)).toMatch(/^Error: Invalid arguments: city:/);
    expect(unfence(sentMessages(reqs[3]!.body).at(-1)?.content)).toMatch(/Unknown tool "no_such_tool"/);
    // After three failed calls the retry budget is spent: the model answers without tools.
    expect(reqs[3]!.body.tools ?? []).toEqual([]);
    expect(replyOf(events)?.text).toBe('Sorry, I could not look that up.');
  });

  it('tells the model about a tool ToolError, a timeout and an internal failure without leaking it', async () => {
    llm.script(
      {
        toolCalls: [
          { name: 'get_weather', arguments: { city: 'Atlantis' } },
          { name: 'slow_lookup', arguments: { ms: 1000 } },
          { name: 'broken_lookup', arguments: {} },
        ],
      },
      { text: 'done' },
    );
    const events = await collect(h.sb.agent.handle(message('go', { threadId: nextThread() })));
    const toolMessages = sentMessages(llm.requestsTo('/chat/completions')[1]!.body).filter((m) => m.role === 'tool');
    expect(toolMessages.map((m) => unfence(m.content))).toEqual([
      'Error: Unknown city "Atlantis". Use a real city name.',
      expect.stringMatching(/timed out after 200 ms/),
      expect.stringMatching(/internal error/),
    ]);
    expect(JSON.stringify(events)).not.toContain('hunter2');
    expect(JSON.stringify(toolMessages)).not.toContain('ECONNREFUSED');
    expect(h.logs.text()).not.toContain('hunter2');
  });

  it('caps tool calls per turn and asks for a final answer at the step cap', async () => {
    const calls = Array.from({ length: 4 }, (_, i) => ({ name: 'get_weather', arguments: { city: `City${i}` } }));
    llm.script({ toolCalls: calls }, { text: 'Here is what I found.' });
    const events = await collect(h.sb.agent.handle(message('many', { threadId: nextThread() })));
    const results = events.filter((e) => e.type === 'tool_result');
    expect(results.map((r) => r.type === 'tool_result' && r.ok)).toEqual([true, true, true, false]);
    expect(replyOf(events)?.text).toBe('Here is what I found.');

    // Step cap: the model keeps calling tools; after AGENT_MAX_STEPS it is asked without tools.
    llm.reset();
    const local = await startHarness({
      llm,
      tools: testTools,
      env: { AGENT_MAX_STEPS: '2', AGENT_MAX_TOOL_CALLS: '10' },
    });
    llm.script(
      { toolCalls: [{ name: 'get_time', arguments: { tz: 'UTC' } }] },
      { toolCalls: [{ name: 'get_time', arguments: { tz: 'UTC' } }] },
      { text: 'Final answer without more tools.' },
    );
    const capped = await collect(local.sb.agent.handle(message('loop', { threadId: nextThread() })));
    await local.close();
    const reqs = llm.requestsTo('/chat/completions');
    expect(reqs).toHaveLength(3);
    expect(reqs[2]!.body.tools ?? []).toEqual([]);
    expect(JSON.stringify(sentMessages(reqs[2]!.body))).toContain('used all the steps');
    expect(replyOf(capped)?.text).toBe('Final answer without more tools.');
  });

  it('ends the turn on a terminal emit tool with its validated arguments', async () => {
    llm.script(
      { toolCalls: [{ name: 'emit_test_result', arguments: { answer: 'yes' } }] },
      { toolCalls: [{ name: 'emit_test_result', arguments: { answer: 'yes', score: 7 } }] },
    );
    const events = await collect(h.sb.agent.handle(message('score it', { threadId: nextThread() })));
    expect(llm.requestsTo('/chat/completions')).toHaveLength(2);
    expect(sentMessages(llm.requestsTo('/chat/completions')[1]!.body).at(-1)?.content).toMatch(/score/);
    expect(replyOf(events)?.text).toBe('Final: yes (7/10)');
    expect(events.at(-1)).toMatchObject({ type: 'done', data: { score: 7 } });
  });

  it('keeps the thread history across turns and separates threads', async () => {
    const threadId = nextThread();
    llm.script({ text: 'Nice to meet you, Ada.' }, { text: 'You are Ada.' }, { text: 'I do not know.' });
    await collect(h.sb.agent.handle(message('My name is Ada.', { threadId })));
    await collect(h.sb.agent.handle(message('Who am I?', { threadId })));
    await collect(h.sb.agent.handle(message('Who am I?', { threadId: nextThread() })));
    const [, second, third] = llm.requestsTo('/chat/completions');
    const conversation = (body: Record<string, unknown>) => sentMessages(body).filter((m) => m.role !== 'system');
    expect(sentMessages(second!.body)[0]?.role).toBe('system');
    expect(conversation(second!.body).map((m) => `${m.role}:${String(m.content)}`)).toEqual([
      'user:My name is Ada.',
      'assistant:Nice to meet you, Ada.',
      'user:Who am I?',
    ]);
    expect(conversation(third!.body).map((m) => m.role)).toEqual(['user']);
  });

  it('answers a message sent mid-turn after the first, in order, exactly once each', async () => {
    const threadId = nextThread();
    llm.script({ text: 'first answer', delayMs: 300 }, { text: 'second answer' });
    const first = collect(h.sb.agent.handle(message('first', { threadId })));
    await new Promise((r) => setTimeout(r, 50));
    const second = collect(h.sb.agent.handle(message('second', { threadId })));
    const [a, b] = await Promise.all([first, second]);
    expect(replyOf(a)?.text).toBe('first answer');
    expect(replyOf(b)?.text).toBe('second answer');
    const reqs = llm.requestsTo('/chat/completions');
    expect(reqs).toHaveLength(2);
    // The second turn saw the first one's answer: it ran after it, not beside it.
    expect(sentMessages(reqs[1]!.body).map((m) => m.content)).toContain('first answer');
  });

  it('turns an unreachable LLM into a clear error event, with no stack trace', async () => {
    const dead = await startFakeOpenAI();
    await dead.close();
    const local = await startHarness({ llm: dead, tools: testTools });
    const events = await collect(local.sb.agent.handle(message('hello', { threadId: nextThread() })));
    await local.close();
    expect(errorOf(events)).toEqual({
      type: 'error',
      code: 'llm_unavailable',
      message: expect.stringMatching(/can’t reach the language model/),
    });
    expect(JSON.stringify(events)).not.toMatch(/at .*\.ts:\d+/);
  });

  it('refuses unmapped Slack workspaces and Discord servers in strict mode, but serves HTTP and Discord DMs from the default tenant', async () => {
    const local = await startHarness({ llm, tools: testTools, env: { TENANT_MODE: 'strict' } });
    const events = await collect(
      local.sb.agent.handle(message('hi', { platform: 'slack', workspaceId: 'T-UNKNOWN', threadId: nextThread() })),
    );
    expect(errorOf(events)).toMatchObject({
      code: 'tenant_not_configured',
      message: expect.stringMatching(/workspace is not set up/),
    });
    const server = await collect(
      local.sb.agent.handle(message('hi', { platform: 'discord', workspaceId: 'G-UNKNOWN', threadId: nextThread() })),
    );
    expect(errorOf(server)?.message).toMatch(/server is not set up/);
    llm.script({ text: 'hello from default' }, { text: 'hello in a DM' });
    const ok = await collect(local.sb.agent.handle(message('hi', { threadId: nextThread() })));
    const dm = await collect(
      local.sb.agent.handle(
        message('hi', { platform: 'discord', workspaceId: 'default', isDirect: true, threadId: nextThread() }),
      ),
    );
    await local.close();
    expect(replyOf(ok)?.text).toBe('hello from default');
    expect(replyOf(dm)?.text).toBe('hello in a DM');
  });

  it('routes suggestion buttons as the user’s next message and rejects unknown buttons clearly', async () => {
    const threadId = nextThread();
    llm.script({ text: 'about email' });
    const events = await collect(
      h.sb.agent.handle(message('', { threadId, action: { id: 'suggest.1', value: 'Only the email ones' } })),
    );
    expect(replyOf(events)?.text).toBe('about email');
    expect(sentMessages(llm.lastRequest('/chat/completions')!.body).at(-1)).toMatchObject({
      role: 'user',
      content: 'Only the email ones',
    });
    const bad = await collect(h.sb.agent.handle(message('', { threadId, action: { id: 'nope.x' } })));
    expect(errorOf(bad)?.message).toMatch(/button is no longer available/);
  });
});

const REDIS = process.env.TEST_REDIS_URL;
if (!REDIS) console.warn('[agent.test] TEST_REDIS_URL not set: Redis-backed thread state test SKIPPED');

describe.skipIf(!REDIS)('thread state on Redis', () => {
  it('survives a restart: a new process sees the thread’s history', async () => {
    const threadId = `redis-restart-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const first = await startHarness({ llm, tools: testTools, env: { REDIS_URL: REDIS! } });
    llm.script({ text: 'Noted: the budget is 40k.' });
    await collect(first.sb.agent.handle(message('Our budget is 40k.', { threadId })));
    await first.close();

    const second = await startHarness({ llm, tools: testTools, env: { REDIS_URL: REDIS! } });
    llm.script({ text: 'It is 40k.' });
    const events = await collect(second.sb.agent.handle(message('What is the budget?', { threadId })));
    await second.close();
    expect(replyOf(events)?.text).toBe('It is 40k.');
    const sent = sentMessages(llm.lastRequest('/chat/completions')!.body).map((m) => m.content);
    expect(sent).toContain('Our budget is 40k.');
    expect(sent).toContain('Noted: the budget is 40k.');
  });

  it('warns at start when replicas (REDIS_URL) would hash the turn record with keys of their own', async () => {
    const unkeyed = await startHarness({ llm, tools: testTools, env: { REDIS_URL: REDIS! } });
    const keyed = await startHarness({
      llm,
      tools: testTools,
      env: { REDIS_URL: REDIS!, TURN_LOG_HASH_KEY: 'a-shared-turn-log-hash-key-0123' },
    });
    await unkeyed.close();
    await keyed.close();
    const warned = (h: typeof keyed) =>
      h.logs.lines.some((l) => l.level === 40 && /TURN_LOG_HASH_KEY/.test(String(l.msg)));
    expect(warned(unkeyed)).toBe(true);
    expect(warned(keyed)).toBe(false);
  });
});
