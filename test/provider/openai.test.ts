import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/telemetry/logger.js';
import { captureLogs } from '../helpers/harness.js';
import { liveObjectCounter } from '../helpers/live-objects.js';
import { buildChatParams, createLlmClient } from '../../src/provider/openai.js';
import {
  LlmError,
  type Completion,
  type CompletionRequest,
  type LlmClient,
  type ToolSpec,
} from '../../src/contract/llm.js';
import {
  DEFAULT_EMBEDDING_DIMENSIONS,
  hashEmbedding,
  startFakeOpenAI,
  TINY_PNG_BASE64,
  type FakeOpenAI,
} from '../fakes/openai-server.js';

const API_KEY = 'sk-test-secret-0123456789abcdef';
const fixture = (name: string) => readFileSync(new URL(`../fixtures/openai-streams/${name}`, import.meta.url), 'utf8');

let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake.close();
});
afterEach(() => {
  fake.reset();
});

function client(env: Record<string, string> = {}): LlmClient {
  const config = parseConfig({
    OPENAI_API_KEY: API_KEY,
    OPENAI_BASE_URL: fake.url,
    OPENAI_MAX_RETRIES: '0',
    EMBEDDING_MODEL: 'text-embedding-3-small',
    EMBEDDING_DIMENSIONS: String(DEFAULT_EMBEDDING_DIMENSIONS),
    ...env,
  });
  return createLlmClient(config, silentLogger());
}

const ask = (text = 'What is the weather?'): CompletionRequest => ({ messages: [{ role: 'user', content: text }] });

async function failure(promise: Promise<unknown>): Promise<LlmError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LlmError);
  return err as LlmError;
}

const weatherTool: ToolSpec = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};

describe('complete() replaying recorded OpenAI streams', () => {
  const cases: Array<[string, Partial<Completion>]> = [
    [
      'single-tool-call.sse',
      {
        toolCalls: [
          {
            id: 'call_c91SqDXlYFuETYv8mUHzz6pp',
            name: 'GetWeatherArgs',
            arguments: '{"city":"Edinburgh","country":"UK","units":"c"}',
          },
        ],
        finishReason: 'tool_calls',
        usage: { promptTokens: 76, completionTokens: 24 },
      },
    ],
    [
      'strict-tools.sse',
      {
        toolCalls: [
          {
            id: 'call_CTf1nWJLqSeRgDqaCG27xZ74',
            name: 'get_weather',
            arguments: '{"city":"San Francisco","state":"CA"}',
          },
        ],
        finishReason: 'tool_calls',
        usage: { promptTokens: 48, completionTokens: 19 },
      },
    ],
    [
      'non-strict-tool-call.sse',
      {
        toolCalls: [
          { id: 'call_4XzlGBLtUe9dy3GVNV4jhq7h', name: 'get_weather', arguments: '{"city":"New York City"}' },
        ],
        finishReason: 'tool_calls',
        usage: { promptTokens: 44, completionTokens: 16 },
      },
    ],
    [
      'parallel-tool-calls.sse',
      {
        content: '',
        toolCalls: [
          {
            id: 'call_JMW1whyEaYG438VE1OIflxA2',
            name: 'GetWeatherArgs',
            arguments: '{"city": "Edinburgh", "country": "GB", "units": "c"}',
          },
          {
            id: 'call_DNYTawLBoN8fj3KN6qU9N1Ou',
            name: 'get_stock_price',
            arguments: '{"ticker": "AAPL", "exchange": "NASDAQ"}',
          },
        ],
        finishReason: 'tool_calls',
        usage: { promptTokens: 149, completionTokens: 60 },
      },
    ],
    [
      'refusal.sse',
      {
        content: '',
        refusal: "I'm sorry, I can't assist with that request.",
        toolCalls: [],
        finishReason: 'stop',
        usage: { promptTokens: 79, completionTokens: 11 },
      },
    ],
    [
      'max-tokens-truncated.sse',
      { content: '{"', toolCalls: [], finishReason: 'length', usage: { promptTokens: 79, completionTokens: 1 } },
    ],
    ['text-only.sse', { toolCalls: [], finishReason: 'stop', usage: { promptTokens: 14, completionTokens: 30 } }],
    ['long-json-text.sse', { toolCalls: [], finishReason: 'stop', usage: { promptTokens: 19, completionTokens: 177 } }],
  ];

  it.each(cases)('%s', async (name, expected) => {
    fake.script({ sse: fixture(name) });
    const result = await client().complete(ask());
    expect(result).toMatchObject(expected);
    for (const call of result.toolCalls) expect(() => JSON.parse(call.arguments) as unknown).not.toThrow();
  });

  it('streams text-only deltas to onText as they arrive', async () => {
    fake.script({ sse: fixture('text-only.sse') });
    const deltas: string[] = [];
    const result = await client().complete({ ...ask(), onText: (d) => deltas.push(d) });
    expect(result.content).toMatch(/^I'm unable to provide real-time weather updates\./);
    expect(result.content).toMatch(/a reliable weather website or a weather app\.$/);
    expect(deltas.join('')).toBe(result.content);
    expect(deltas.length).toBeGreaterThan(20);
  });

  it('keeps the 47 KB long-text stream intact, ° included', async () => {
    const sse = fixture('long-json-text.sse');
    expect(sse.length).toBeGreaterThan(45_000);
    // An independent reading of the file: every content delta, in order.
    const expected = [...sse.matchAll(/^data: (\{.*\})$/gm)]
      .map((m) => JSON.parse(m[1] ?? '{}') as { choices: Array<{ delta: { content?: string | null } }> })
      .map((chunk) => chunk.choices[0]?.delta.content ?? '')
      .join('');
    fake.script({ sse });
    const deltas: string[] = [];
    const result = await client().complete({ ...ask(), onText: (d) => deltas.push(d) });
    expect(result.content).toBe(expected);
    expect(result.content).toHaveLength(608);
    expect(result.content.match(/°/g)).toHaveLength(7);
    expect(result.content).toContain('"temperature": "18°C"');
    expect(JSON.parse(result.content)).toMatchObject({
      location: 'San Francisco, CA',
      forecast: [{ day: 'Monday' }, {}, {}],
    });
    expect(deltas.join('')).toBe(expected);
  });
});

describe('complete() with provider quirks on the wire', () => {
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'q', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

  it('assembles tool calls without index or id, with a leading {} and no usage', async () => {
    fake.script({
      sse:
        chunk({
          role: 'assistant',
          tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
        }) +
        chunk({ tool_calls: [{ function: { arguments: '{"city":' } }] }) +
        chunk({ tool_calls: [{ function: { arguments: '"Oslo"}' } }] }) +
        chunk({}, 'tool_calls') +
        'data: [DONE]\n\n',
    });
    const result = await client().complete({ ...ask(), tools: [weatherTool] });
    expect(result.toolCalls).toEqual([{ id: 'call_0', name: 'get_weather', arguments: '{"city":"Oslo"}' }]);
    expect(result.finishReason).toBe('tool_calls');
    expect(result.usage).toBeUndefined();
  });

  it('keeps usage sent on the finishing chunk, before the stream ends', async () => {
    const finishing = JSON.stringify({
      choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
      usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
    });
    fake.script({
      sse: chunk({ content: 'Hi there' }) + `data: ${finishing}\n\n` + chunk({ content: '' }) + 'data: [DONE]\n\n',
    });
    const result = await client().complete(ask());
    expect(result).toMatchObject({
      content: 'Hi there',
      finishReason: 'stop',
      usage: { promptTokens: 9, completionTokens: 2 },
    });
  });

  it('tolerates a stream that ends without [DONE]', async () => {
    fake.script({ sse: chunk({ content: 'partial' }) });
    const result = await client().complete(ask());
    expect(result).toMatchObject({ content: 'partial', finishReason: 'unknown' });
  });
});

describe('complete() against scripted answers', () => {
  it('sends a streaming request with usage, tools and sampling options', async () => {
    fake.script({ text: 'ok' });
    await client({ OPENAI_MODEL: 'my-model' }).complete({
      ...ask(),
      tools: [weatherTool],
      toolChoice: 'required',
      temperature: 0.2,
      maxTokens: 321,
    });
    const sent = fake.lastRequest('/chat/completions');
    expect(sent?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent?.body).toMatchObject({
      model: 'my-model',
      messages: [{ role: 'user', content: 'What is the weather?' }],
      stream: true,
      stream_options: { include_usage: true },
      tools: [weatherTool],
      tool_choice: 'required',
      temperature: 0.2,
      max_tokens: 321,
    });
  });

  it('leaves out tools, tool_choice and unset options when there are no tools', async () => {
    fake.script({ text: 'ok' });
    await client().complete({ ...ask(), tools: [], toolChoice: 'none' });
    const body = fake.lastRequest('/chat/completions')?.body ?? {};
    expect(Object.keys(body).sort()).toEqual(['messages', 'model', 'stream', 'stream_options']);
  });

  it('defaults tool_choice to auto when tools are given', () => {
    expect(buildChatParams('m', { ...ask(), tools: [weatherTool] }).tool_choice).toBe('auto');
  });

  it('returns scripted text in several deltas, with usage', async () => {
    fake.script({ text: 'The weather in Oslo is mild today.' });
    const deltas: string[] = [];
    const result = await client().complete({ ...ask(), onText: (d) => deltas.push(d) });
    expect(result.content).toBe('The weather in Oslo is mild today.');
    expect(deltas.length).toBeGreaterThan(3);
    expect(result.finishReason).toBe('stop');
    expect(result.usage?.promptTokens).toBeGreaterThan(0);
    expect(result.usage?.completionTokens).toBeGreaterThan(0);
  });

  it('returns scripted tool calls with their arguments reassembled', async () => {
    fake.script({
      text: 'Let me check.',
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Zürich', days: [1, 2, 3] }, id: 'call_given' },
        { name: 'raw', arguments: '{"not":"parsed"' },
      ],
      usage: { prompt_tokens: 42, completion_tokens: 7 },
    });
    const result = await client().complete({ ...ask(), tools: [weatherTool] });
    expect(result.content).toBe('Let me check.');
    expect(result.toolCalls[0]).toEqual({
      id: 'call_given',
      name: 'get_weather',
      arguments: '{"city":"Zürich","days":[1,2,3]}',
    });
    expect(result.toolCalls[1]).toMatchObject({ name: 'raw', arguments: '{"not":"parsed"' });
    expect(result.toolCalls[1]?.id).toMatch(/^call_/);
    expect(result.finishReason).toBe('tool_calls');
    expect(result.usage).toEqual({ promptTokens: 42, completionTokens: 7 });
  });

  it('consumes the script in order and fails the test on a call past it', async () => {
    const llm = client();
    fake.script({ text: 'first' }, (req) => ({ text: `you said ${JSON.stringify(req.body.messages)}` }));
    expect((await llm.complete(ask('a'))).content).toBe('first');
    expect((await llm.complete(ask('b'))).content).toBe('you said [{"role":"user","content":"b"}]');
    expect(fake.remaining()).toBe(0);
    const past = await failure(llm.complete(ask('c')));
    expect(past.message).not.toContain('(no scripted response)');
    expect(fake.requestsTo('/chat/completions')).toHaveLength(3);
    expect(() => fake.verify()).toThrow(/1 chat call\(s\) past the script:\n {2}- last message "c"/);
    expect(() => fake.verify()).not.toThrow(); // verify() forgets what it reported
  });

  it('fails the test on scripted steps left unused, unless the test allows them', async () => {
    fake.script({ text: 'used' }, { text: 'never asked for' }, { toolCalls: [{ name: 'search', arguments: {} }] });
    expect((await client().complete(ask())).content).toBe('used');
    expect(() => fake.verify()).toThrow(/2 scripted step\(s\) left unused: text "never asked for", tool calls search/);
    expect(fake.remaining()).toBe(0);

    fake.script({ text: 'cut short on purpose' });
    fake.allowUnused();
    expect(() => fake.verify()).not.toThrow();
    fake.script({ text: 'the allowance lasts one check' });
    expect(() => fake.verify()).toThrow(/left unused/);
  });

  it('fails the test on a failNext left unspent, even when unused steps are allowed; an embeddings call spends one', async () => {
    fake.failNext(1, 503);
    fake.allowUnused();
    expect(() => fake.verify()).toThrow(/1 failNext\(503\) failure\(s\) left unspent/);
    // verify() forgot it: the next request is answered, not failed by the last test's leftover.
    expect(await client().embed(['after'])).toHaveLength(1);

    fake.failNext(1, 503);
    expect(await failure(client().embed(['spent']))).toMatchObject({ status: 503 });
    expect(fake.requestsTo('/embeddings')).toHaveLength(2);
    expect(() => fake.verify()).not.toThrow();
  });

  it('forgives both when started lenient', async () => {
    const lenient = await startFakeOpenAI({ lenient: true });
    try {
      const config = parseConfig({ OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: lenient.url, OPENAI_MAX_RETRIES: '0' });
      lenient.script({ text: 'one' }, { text: 'two' });
      const llm = createLlmClient(config, silentLogger());
      expect((await llm.complete(ask())).content).toBe('one');
      expect(() => lenient.verify()).not.toThrow();
      expect((await llm.complete(ask())).content).toBe('(no scripted response)');
    } finally {
      await lenient.close();
    }
  });

  it('sends a placeholder key when only a base URL is configured (Ollama)', async () => {
    fake.script({ text: 'hi' });
    const config = parseConfig({ OPENAI_BASE_URL: fake.url, OPENAI_MAX_RETRIES: '0' });
    await createLlmClient(config, silentLogger()).complete(ask());
    expect(fake.lastRequest()?.headers.authorization).toBe('Bearer not-needed');
  });

  it('refuses to start with neither key nor base URL', () => {
    expect(() => createLlmClient(parseConfig({}), silentLogger())).toThrow(ConfigError);
  });

  it('exposes the configured model', () => {
    expect(client({ OPENAI_MODEL: 'gpt-test' }).model).toBe('gpt-test');
  });
});

describe('complete() errors', () => {
  it('maps 401 to auth without leaking the key the server echoed', async () => {
    const strict = await startFakeOpenAI({ apiKey: 'sk-the-right-key-000000' });
    try {
      const llm = createLlmClient(
        parseConfig({ OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: strict.url, OPENAI_MAX_RETRIES: '2' }),
        silentLogger(),
      );
      const err = await failure(llm.complete(ask()));
      expect(err.kind).toBe('auth');
      expect(err.status).toBe(401);
      expect(err.message).toMatch(/^the LLM answered 401: Incorrect API key provided: \[redacted\]/);
      expect(err.message).not.toContain(API_KEY);
      expect(err.message).not.toContain('0123456789abcdef');
      expect(strict.requests).toHaveLength(1); // 401 is not retried
    } finally {
      await strict.close();
    }
  });

  it('redacts a key that does not look like an OpenAI key', async () => {
    const oddKey = 'gsk_custom_provider_key_987654321';
    fake.script({ status: 401, body: { error: { message: `bad key ${oddKey}` } } });
    const err = await failure(client({ OPENAI_API_KEY: oddKey }).complete(ask()));
    expect(err.kind).toBe('auth');
    expect(err.message).not.toContain(oddKey);
  });

  it.each([
    [403, 'auth'],
    [429, 'rate_limited'],
    [400, 'bad_request'],
    [404, 'bad_request'],
    [422, 'bad_request'],
    [500, 'server'],
    [503, 'server'],
  ] as const)('maps HTTP %i to %s', async (status, kind) => {
    fake.script({ status, body: { error: { message: 'scripted failure' } } });
    const err = await failure(client().complete(ask()));
    expect(err.kind).toBe(kind);
    expect(err.status).toBe(status);
    expect(err.message).toContain('scripted failure');
  });

  it('retries a 500 and then succeeds', async () => {
    fake.failNext(2, 500);
    fake.script({ text: 'recovered' });
    const result = await client({ OPENAI_MAX_RETRIES: '2' }).complete(ask());
    expect(result.content).toBe('recovered');
    expect(fake.requestsTo('/chat/completions')).toHaveLength(3);
  });

  it('retries a 429 from the script and then succeeds', async () => {
    fake.script({ status: 429 }, { text: 'after the limit' });
    const result = await client({ OPENAI_MAX_RETRIES: '1' }).complete(ask());
    expect(result.content).toBe('after the limit');
  });

  it('gives up after the configured retries', async () => {
    fake.failNext(2, 502); // exactly the two calls it makes: a leftover failure fails verify()
    const err = await failure(client({ OPENAI_MAX_RETRIES: '1' }).complete(ask()));
    expect(err.kind).toBe('server');
    expect(fake.requestsTo('/chat/completions')).toHaveLength(2);
  });

  it('maps a refused connection to unreachable', async () => {
    const port = await closedPort();
    const llm = createLlmClient(
      parseConfig({ OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_MAX_RETRIES: '0' }),
      silentLogger(),
    );
    const err = await failure(llm.complete(ask()));
    expect(err.kind).toBe('unreachable');
    expect(err.message).toContain(`127.0.0.1:${port}`);
    expect(err.message).toContain('ECONNREFUSED');
    expect(err.message).not.toContain(API_KEY);
  });

  it('maps an abort before the answer to aborted', async () => {
    fake.script({ hang: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const err = await failure(client().complete({ ...ask(), signal: controller.signal }));
    expect(err.kind).toBe('aborted');
  });

  it('maps an abort in the middle of the stream to aborted', async () => {
    fake.script({ text: 'one two three four five six', chunkDelayMs: 30 });
    const controller = new AbortController();
    const deltas: string[] = [];
    const request = client().complete({
      ...ask(),
      signal: controller.signal,
      onText: (d) => {
        deltas.push(d);
        controller.abort();
      },
    });
    const err = await failure(request);
    expect(err.kind).toBe('aborted');
    expect(deltas).toEqual(['one']);
  });

  it('does not send anything when the signal is already aborted', async () => {
    const err = await failure(client().complete({ ...ask(), signal: AbortSignal.abort() }));
    expect(err.kind).toBe('aborted');
    expect(fake.requests).toHaveLength(0);
  });

  it('keeps nothing alive once a call with a long-lived signal has ended (a turn signal, the shutdown signal)', async () => {
    const llm = client();
    const turn = new AbortController();
    const liveSignals = await liveObjectCounter('AbortSignal.prototype');
    const before = await liveSignals();
    const CALLS = 40;
    for (let i = 0; i < CALLS; i++) {
      fake.script({ text: `answer ${i}` });
      expect((await llm.complete({ ...ask(), signal: turn.signal })).content).toBe(`answer ${i}`);
    }
    // Each call makes a few signals (ours, the SDK's, fetch's); none may outlive its call.
    expect(await liveSignals()).toBeLessThan(before + CALLS / 4);
  });

  it('maps a server that never answers to timeout', async () => {
    fake.script({ hang: true });
    const started = Date.now();
    const err = await failure(client({ OPENAI_TIMEOUT_MS: '1000' }).complete(ask()));
    expect(err.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('maps a stream that stalls halfway to timeout', async () => {
    fake.script({ text: 'this answer stops early', stallAfterChunks: 2 });
    const deltas: string[] = [];
    const err = await failure(
      client({ OPENAI_TIMEOUT_MS: '1000' }).complete({ ...ask(), onText: (d) => deltas.push(d) }),
    );
    expect(err.kind).toBe('timeout');
    expect(deltas).toEqual(['this']);
  });

  it('passes an exception from onText through unchanged and stops the stream', async () => {
    fake.script({ text: 'one two three' });
    const boom = new Error('adapter broke');
    const err = await client()
      .complete({
        ...ask(),
        onText: () => {
          throw boom;
        },
      })
      .catch((e: unknown) => e);
    expect(err).toBe(boom);
  });

  it('maps an error event inside the stream to server', async () => {
    fake.script({ sse: 'data: {"error":{"message":"overloaded, try later","type":"server_error"}}\n\n' });
    const err = await failure(client().complete(ask()));
    expect(err.kind).toBe('server');
    expect(err.message).toContain('overloaded');
  });

  it('maps a malformed stream to server', async () => {
    fake.script({ sse: 'data: {not json\n\n' });
    const err = await failure(client().complete(ask()));
    expect(err.kind).toBe('server');
  });
});

describe('complete() when OPENAI_BASE_URL answers 200 with something else than a stream', () => {
  const bodies = [
    {
      contentType: 'text/html; charset=utf-8',
      body: '<html><body>Sign in to the proxy</body></html>',
      says: 'an HTML page',
    },
    {
      contentType: 'application/json',
      body: JSON.stringify({
        id: 'x',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: 'hi' } }],
      }),
      says: 'a non-stream JSON body',
    },
  ];
  for (const { contentType, body, says } of bodies) {
    it(`warns the operator, naming OPENAI_BASE_URL and ${says}`, async () => {
      // A proxy's sign-in page or a server that ignores stream: true, on loopback.
      const server = createHttpServer((_req, res) => res.writeHead(200, { 'content-type': contentType }).end(body));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const { log, logs } = captureLogs();
      try {
        const config = parseConfig({ OPENAI_BASE_URL: url, OPENAI_MAX_RETRIES: '0' });
        const err = await failure(createLlmClient(config, log).complete(ask()));
        expect(err.kind).toBe('server');
        const warning = logs.lines.find((l) => l.code === 'llm_not_a_stream');
        expect(warning).toMatchObject({ level: 40, body: says });
        expect(String(warning?.msg)).toContain('OPENAI_BASE_URL');
        expect(String(warning?.msg)).toContain(says);
      } finally {
        server.close();
      }
    });
  }
});

describe('embed()', () => {
  it('returns one deterministic vector per text, in order', async () => {
    const llm = client();
    const vectors = await llm.embed(['alpha', 'beta', 'alpha']);
    expect(vectors).toHaveLength(3);
    expect(vectors[0]).toHaveLength(DEFAULT_EMBEDDING_DIMENSIONS);
    expect(vectors[0]).toEqual(vectors[2]);
    expect(vectors[0]).not.toEqual(vectors[1]);
    expect(vectors[1]).toEqual(hashEmbedding('beta', DEFAULT_EMBEDDING_DIMENSIONS));
    expect(fake.lastRequest('/embeddings')?.body).toEqual({
      model: 'text-embedding-3-small',
      input: ['alpha', 'beta', 'alpha'],
      dimensions: DEFAULT_EMBEDDING_DIMENSIONS,
      encoding_format: 'float',
    });
  });

  it('asks for the configured dimensions', async () => {
    const vectors = await client({ EMBEDDING_DIMENSIONS: '1536' }).embed(['x']);
    expect(vectors[0]).toHaveLength(1536);
    expect(fake.lastRequest('/embeddings')?.body.dimensions).toBe(1536);
  });

  it('splits large inputs into batches and keeps the order', async () => {
    const texts = Array.from({ length: 150 }, (_, i) => `text ${i}`);
    const vectors = await client().embed(texts);
    expect(vectors).toHaveLength(150);
    expect(vectors[149]).toEqual(hashEmbedding('text 149', DEFAULT_EMBEDDING_DIMENSIONS));
    expect(fake.requestsTo('/embeddings')).toHaveLength(2);
  });

  it('returns nothing for no texts, without a request', async () => {
    expect(await client().embed([])).toEqual([]);
    expect(fake.requests).toHaveLength(0);
  });

  it('throws bad_request when EMBEDDING_MODEL is not set', async () => {
    const err = await failure(client({ EMBEDDING_MODEL: '' }).embed(['x']));
    expect(err.kind).toBe('bad_request');
    expect(err.message).toBe('EMBEDDING_MODEL is not set');
  });

  it('drops `dimensions` for an endpoint that rejects it', async () => {
    const llm = client();
    fake.failNext(1, 400, { error: { message: 'This model does not support specifying dimensions.' } });
    expect(await llm.embed(['x'])).toHaveLength(1);
    await llm.embed(['y']);
    const bodies = fake.requestsTo('/embeddings').map((r) => r.body);
    expect(bodies.map((b) => 'dimensions' in b)).toEqual([true, false, false]);
  });

  it('fails clearly when the vectors have the wrong size', async () => {
    const odd = await startFakeOpenAI({ embed: () => [1, 0, 0] });
    try {
      const llm = createLlmClient(
        parseConfig({
          OPENAI_API_KEY: API_KEY,
          OPENAI_BASE_URL: odd.url,
          EMBEDDING_MODEL: 'e',
          EMBEDDING_DIMENSIONS: '8',
        }),
        silentLogger(),
      );
      const err = await failure(llm.embed(['x']));
      expect(err.kind).toBe('bad_request');
      expect(err.message).toContain('EMBEDDING_DIMENSIONS is 8');
    } finally {
      await odd.close();
    }
  });

  it('maps embedding errors like chat errors', async () => {
    fake.failNext(1, 401);
    const err = await failure(client().embed(['x']));
    expect(err.kind).toBe('auth');
  });
});

describe('the fake OpenAI server', () => {
  const sdk = () => new OpenAI({ apiKey: 'sk-fake', baseURL: fake.url, maxRetries: 0 });

  it('rejects requests without a bearer token', async () => {
    const res = await fetch(`${fake.url}/chat/completions`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(401);
  });

  it('answers non-streaming chat requests with a chat.completion', async () => {
    fake.script({ toolCalls: [{ name: 'f', arguments: { a: 1 } }] });
    const completion = await sdk().chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]?.message.tool_calls?.[0]).toMatchObject({
      function: { name: 'f', arguments: '{"a":1}' },
    });
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('answers a recorded fixture without streaming too', async () => {
    fake.script({ sse: fixture('refusal.sse') });
    const completion = await sdk().chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(completion.choices[0]?.message.refusal).toBe("I'm sorry, I can't assist with that request.");
  });

  it('omits the usage chunk unless asked for it', async () => {
    fake.script({ text: 'a b' });
    const stream = await sdk().chat.completions.create({ model: 'm', messages: [], stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.some((c) => c.usage)).toBe(false);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('a b');
  });

  it('decodes base64 embeddings the SDK asks for by default', async () => {
    const response = await sdk().embeddings.create({ model: 'e', input: 'hello', dimensions: 4 });
    const vector = response.data[0]?.embedding ?? [];
    const expected = hashEmbedding('hello', 4);
    expect(vector).toHaveLength(4);
    vector.forEach((v, i) => expect(v).toBeCloseTo(expected[i] ?? NaN, 5));
  });

  it('generates a valid PNG image', async () => {
    const response = await sdk().images.generate({ model: 'gpt-image-1', prompt: 'a cat' });
    const png = Buffer.from(response.data?.[0]?.b64_json ?? '', 'base64');
    expect(response.data?.[0]?.b64_json).toBe(TINY_PNG_BASE64);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(fake.lastRequest('/images/generations')?.body.prompt).toBe('a cat');
  });
});

/** A port nobody listens on: bind one, then let it go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
