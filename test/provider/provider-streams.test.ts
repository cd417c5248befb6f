/**
 * Recorded streams of other OpenAI-compatible providers (test/fixtures/provider-streams/, see
 * its SOURCE.md), replayed through the real `openai` client against the loopback fake, then
 * through a whole turn: the assembled text, reasoning, tool calls and usage, and what the
 * follow-up request after a tool call carries back to each provider.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../src/adapters/http/app.js';
import { createLlmClient } from '../../src/provider/openai.js';
import { parseConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/telemetry/logger.js';
import { defineTool } from '../../src/contract/tool.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { collect, message, replyOf, sentMessages, startHarness, type Harness } from '../helpers/harness.js';
import { peer } from '../helpers/peer.js';

const chunks = (name: string) =>
  readFileSync(new URL(`../fixtures/provider-streams/${name}.chunks.txt`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.trim());
/** A recording's chunks as the SSE body the provider sent. */
const sse = (lines: string[]) => `${lines.map((l) => `data: ${l}\n\n`).join('')}data: [DONE]\n\n`;

/** What each recording must assemble to: the providers' own intended answer. */
const RECORDINGS = {
  'deepseek-tool-call': {
    model: 'deepseek-reasoner',
    text: '',
    reasoning: /^The user is asking for the weather in San Francisco/,
    call: { name: 'weather', args: { location: 'San Francisco' } },
    // DeepSeek counts reasoning inside completion_tokens (total = prompt + completion) and the
    // prompt cache's hits as prompt_tokens_details.cached_tokens and prompt_cache_hit_tokens.
    usage: { promptTokens: 339, completionTokens: 83, cachedPromptTokens: 320, reasoningTokens: 39 },
    echo: 'reasoning_content',
  },
  'xai-tool-call': {
    model: 'grok-3-mini',
    text: '',
    reasoning: /^First, the user is$/,
    call: { name: 'weather', args: { location: 'San Francisco' } },
    // xAI leaves reasoning out of completion_tokens (26) but bills it as output: total_tokens (513)
    // is prompt + completion + reasoning (196), so the completion count becomes 26 + 196.
    usage: { promptTokens: 291, completionTokens: 222, cachedPromptTokens: 290, reasoningTokens: 196 },
    echo: 'reasoning_content',
  },
  'alibaba-tool-call': {
    model: 'qwen3-max',
    text: '',
    reasoning: undefined,
    call: { name: 'weather', args: { location: 'San Francisco' } },
    usage: { promptTokens: 295, completionTokens: 22 },
    echo: undefined,
  },
  'mistral-tool-call': {
    model: 'mistral-small-latest',
    text: '',
    reasoning: undefined,
    call: { name: 'weather', args: { location: 'San Francisco' } },
    usage: { promptTokens: 124, completionTokens: 22 },
    echo: undefined,
  },
  'groq-tool-call': {
    model: 'llama-3.3-70b-versatile',
    text: '',
    reasoning: undefined,
    call: { name: 'weather', args: {} },
    usage: { promptTokens: 210, completionTokens: 15 },
    echo: undefined,
  },
  'mistral-reasoning': {
    model: 'magistral-medium-2507',
    text: '2 + 2 = 4',
    reasoning: /^The user is asking for 2\+2\. This is basic arithmetic\. 2\+2=4\.$/,
    call: undefined,
    usage: { promptTokens: 10, completionTokens: 46 },
    echo: undefined,
  },
  'perplexity-text': {
    model: 'sonar',
    text: '**EcoVista Day**[1][5]',
    reasoning: undefined,
    call: undefined,
    usage: { promptTokens: 11, completionTokens: 434 },
    echo: undefined,
  },
} as const;
type Name = keyof typeof RECORDINGS;
const names = Object.keys(RECORDINGS) as Name[];

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

describe('recorded provider streams through the LLM client', () => {
  const client = () =>
    createLlmClient(
      parseConfig({ OPENAI_API_KEY: 'sk-rec', OPENAI_BASE_URL: fake.url, OPENAI_MAX_RETRIES: '0' }),
      silentLogger(),
    );

  it.each(names)('%s assembles to the intended text, reasoning, tool calls and usage', async (name) => {
    const want = RECORDINGS[name];
    expect(JSON.parse(chunks(name)[0]!).model).toBe(want.model);
    fake.script({ sse: sse(chunks(name)) });
    const shown: string[] = [];
    const thought: string[] = [];
    const completion = await client().complete({
      messages: [{ role: 'user', content: 'hi' }],
      onText: (t) => shown.push(t),
      onReasoning: (t) => thought.push(t),
    });
    expect(completion.content).toBe(want.text);
    expect(shown.join('')).toBe(want.text); // reasoning never streams as text ("[object Object]" was Mistral's)
    if (want.reasoning) {
      expect(completion.reasoning?.text).toMatch(want.reasoning);
      expect(thought.join('')).toBe(completion.reasoning?.text);
    } else expect(completion.reasoning).toBeUndefined();
    expect(completion.toolCalls.map((c) => ({ name: c.name, args: JSON.parse(c.arguments) as unknown }))).toEqual(
      want.call ? [want.call] : [],
    );
    expect(completion.usage).toEqual(want.usage);
  });

  it('reads Groq’s older layout, where usage comes only in x_groq.usage', async () => {
    // The recorded Groq stream with its top-level `usage` removed, as Groq sent it before adding that field.
    const older = chunks('groq-tool-call').map((l) => {
      const { usage: _usage, ...rest } = JSON.parse(l) as Record<string, unknown>;
      return JSON.stringify(rest);
    });
    expect(older.join('\n')).not.toMatch(/"usage":\{"queue_time".*"usage":/);
    fake.script({ sse: sse(older) });
    const completion = await client().complete({ messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.usage).toEqual({ promptTokens: 210, completionTokens: 15 });
  });
});

describe('a whole turn on each recorded tool-call stream', () => {
  const weather = defineTool({
    name: 'weather',
    title: 'Checking the weather',
    description: 'The weather for a location.',
    input: z.object({ location: z.string().optional() }),
    async run(input) {
      return { content: `Sunny in ${input.location ?? 'your area'}.` };
    },
  });
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ llm: fake, tools: [weather] });
  });
  afterAll(() => h.close());

  const toolCallNames = names.filter((n) => RECORDINGS[n].call);
  it.each(toolCallNames)(
    '%s: the follow-up request carries what the provider needs back, the reply shows no reasoning',
    async (name) => {
      const want = RECORDINGS[name];
      const recorded = chunks(name).map(
        (l) => JSON.parse(l) as { choices?: { delta?: { tool_calls?: { id?: string }[] } }[] },
      );
      const callId = recorded
        .flatMap((c) => c.choices ?? [])
        .flatMap((c) => c.delta?.tool_calls ?? [])
        .find((t) => t.id)?.id;
      fake.script({ sse: sse(chunks(name)) }, { text: 'It is sunny in San Francisco.' });
      const events = await collect(h.sb.agent.handle(message('weather in SF?', { threadId: `rec-${name}` })));
      expect(replyOf(events)?.text).toBe('It is sunny in San Francisco.');
      expect(events.some((e) => e.type === 'reasoning_status')).toBe(Boolean(want.reasoning));
      const done = events.find((e) => e.type === 'done');
      expect(done && done.type === 'done' ? done.usage.promptTokens : 0).toBeGreaterThanOrEqual(
        want.usage.promptTokens,
      );

      const followUp = sentMessages(fake.requestsTo('/chat/completions')[1]!.body) as Record<string, unknown>[];
      const assistant = followUp.find((m) => m.role === 'assistant' && m.tool_calls) as {
        tool_calls: { id: string; function: { name: string; arguments: string } }[];
        reasoning_content?: string;
      };
      expect(assistant.tool_calls).toMatchObject([{ id: callId, function: { name: 'weather' } }]);
      expect(JSON.parse(assistant.tool_calls[0]!.function.arguments)).toEqual(want.call?.args);
      expect(followUp.find((m) => m.role === 'tool')).toMatchObject({ tool_call_id: callId });
      if (want.echo === 'reasoning_content') expect(assistant.reasoning_content).toMatch(want.reasoning!);
      else expect(assistant).not.toHaveProperty('reasoning_content');

      // The next turn in the thread: the reasoning stayed in its turn, not in the history.
      fake.script({ text: 'Anything else?' });
      await collect(h.sb.agent.handle(message('thanks', { threadId: `rec-${name}` })));
      const nextTurn = JSON.stringify(fake.requestsTo('/chat/completions')[2]!.body);
      expect(nextTurn).toContain('"tool_calls"');
      expect(nextTurn).not.toContain('reasoning_content');
    },
  );

  it('shows a reasoning model’s thinking as `event: reasoning_status` over SSE, never its text', async () => {
    fake.script({ sse: sse(chunks('mistral-reasoning')) });
    const app = createHttpApp({ agent: h.sb.agent, log: silentLogger() });
    const res = await app.request(
      '/api/chat',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ message: '2+2?', threadId: 'rec-sse' }),
      },
      peer(),
    );
    const body = await res.text();
    expect(body).toMatch(/event: reasoning_status\ndata: \{"text":"Reasoning…"\}/);
    expect(body).toContain('2 + 2 = 4');
    expect(body).not.toContain('basic arithmetic');
    expect(body.indexOf('event: reasoning_status')).toBeLessThan(body.indexOf('event: text_delta'));
  });

  it('sends a Gemini thought signature (extra_content) back on its tool call', async () => {
    // Gemini's OpenAI-compatible stream attaches `extra_content.google.thought_signature` to a tool call.
    const gemini = [
      {
        choices: [
          {
            index: 0,
            delta: {
              role: 'assistant',
              tool_calls: [
                {
                  index: 0,
                  id: 'call_g1',
                  type: 'function',
                  extra_content: { google: { thought_signature: 'EocDCoQD-signature' } },
                  function: { name: 'weather', arguments: '{"location":"Oslo"}' },
                },
              ],
            },
          },
        ],
      },
      {
        choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }],
        usage: { prompt_tokens: 50, completion_tokens: 9 },
      },
    ].map((c) => JSON.stringify(c));
    fake.script({ sse: sse(gemini) }, { text: 'Sunny in Oslo.' });
    await collect(h.sb.agent.handle(message('weather in Oslo?', { threadId: 'rec-gemini' })));
    const followUp = sentMessages(fake.requestsTo('/chat/completions')[1]!.body) as Record<string, unknown>[];
    const assistant = followUp.find((m) => m.role === 'assistant' && m.tool_calls) as {
      tool_calls: Record<string, unknown>[];
    };
    expect(assistant.tool_calls[0]).toMatchObject({
      id: 'call_g1',
      extra_content: { google: { thought_signature: 'EocDCoQD-signature' } },
    });
  });
});
