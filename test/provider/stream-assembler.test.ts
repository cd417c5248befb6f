import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import {
  assembleChunks,
  normaliseArguments,
  StreamAssembler,
  type ChunkLike,
  type DeltaLike,
  type ToolCallDeltaLike,
} from '../../src/provider/stream-assembler.js';

const fixture = (name: string) => new URL(`../fixtures/openai-streams/${name}`, import.meta.url);

/** The `data:` payloads of a recorded stream, parsed, without `[DONE]`. */
function recordedChunks(name: string): ChunkLike[] {
  return readFileSync(fixture(name), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice('data: '.length)) as ChunkLike);
}

const delta = (d: DeltaLike, finishReason: string | null = null): ChunkLike => ({
  choices: [{ index: 0, delta: d, finish_reason: finishReason }],
});
const tools = (...calls: ToolCallDeltaLike[]): ChunkLike => delta({ tool_calls: calls });
const finish = (reason: string): ChunkLike => delta({}, reason);
const usageOnly = (prompt: number, completion: number): ChunkLike => ({
  choices: [],
  usage: { prompt_tokens: prompt, completion_tokens: completion },
});

describe('StreamAssembler on recorded OpenAI streams', () => {
  it('joins parallel tool calls per index', () => {
    const result = assembleChunks(recordedChunks('parallel-tool-calls.sse'));
    expect(result.toolCalls).toEqual([
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
    ]);
    expect(result.finishReason).toBe('tool_calls');
    expect(result.content).toBe('');
    expect(result.usage).toEqual({ promptTokens: 149, completionTokens: 60 });
  });

  it('keeps a refusal apart from the content', () => {
    const onText = vi.fn();
    const result = assembleChunks(recordedChunks('refusal.sse'), onText);
    expect(result.refusal).toBe("I'm sorry, I can't assist with that request.");
    expect(result.content).toBe('');
    expect(onText).not.toHaveBeenCalled();
    expect(result.finishReason).toBe('stop');
  });

  it('reports a truncated answer as finish `length`', () => {
    const result = assembleChunks(recordedChunks('max-tokens-truncated.sse'));
    expect(result).toEqual({
      content: '{"',
      toolCalls: [],
      finishReason: 'length',
      usage: { promptTokens: 79, completionTokens: 1 },
    });
  });

  it('streams every visible delta of a long answer to onText', () => {
    const deltas: string[] = [];
    const result = assembleChunks(recordedChunks('long-json-text.sse'), (d) => deltas.push(d));
    expect(deltas.join('')).toBe(result.content);
    expect(deltas.length).toBeGreaterThan(150);
    expect(deltas).not.toContain('');
    expect(result.content.match(/°/g)).toHaveLength(7);
    expect(JSON.parse(result.content)).toMatchObject({ location: 'San Francisco, CA' });
  });
});

describe('StreamAssembler provider quirks', () => {
  it('matches tool-call deltas without an index by id', () => {
    const result = assembleChunks([
      tools({ id: 'a', function: { name: 'first', arguments: '{"x"' } }),
      tools({ id: 'b', function: { name: 'second', arguments: '{"y":' } }),
      tools({ id: 'a', function: { arguments: ':1}' } }),
      tools({ id: 'b', function: { arguments: '2}' } }),
      finish('tool_calls'),
    ]);
    expect(result.toolCalls).toEqual([
      { id: 'a', name: 'first', arguments: '{"x":1}' },
      { id: 'b', name: 'second', arguments: '{"y":2}' },
    ]);
  });

  it('appends deltas with neither index nor id to the last call', () => {
    const result = assembleChunks([
      tools({ id: 'a', function: { name: 'one', arguments: '{}' } }),
      tools({ id: 'b', function: { name: 'two', arguments: '' } }),
      tools({ function: { arguments: '{"q":' } }),
      tools({ function: { arguments: '"hi"}' } }),
    ]);
    expect(result.toolCalls).toEqual([
      { id: 'a', name: 'one', arguments: '{}' },
      { id: 'b', name: 'two', arguments: '{"q":"hi"}' },
    ]);
  });

  it('follows an index when later chunks drop the id', () => {
    const result = assembleChunks([
      tools({ index: 0, id: 'call_x', function: { name: 'lookup', arguments: '' } }),
      tools({ index: 0, function: { arguments: '{"id":' } }),
      tools({ index: 0, function: { arguments: '7}' } }),
    ]);
    expect(result.toolCalls).toEqual([{ id: 'call_x', name: 'lookup', arguments: '{"id":7}' }]);
  });

  it('treats a new id on a reused index as a new call', () => {
    // Some providers send each complete call as index 0.
    const result = assembleChunks([
      tools({ index: 0, id: 'c1', function: { name: 'a', arguments: '{"n":1}' } }),
      tools({ index: 0, id: 'c2', function: { name: 'b', arguments: '{"n":2}' } }),
      tools({ index: 0, function: { arguments: '' } }),
    ]);
    expect(result.toolCalls.map((c) => [c.id, c.name, c.arguments])).toEqual([
      ['c1', 'a', '{"n":1}'],
      ['c2', 'b', '{"n":2}'],
    ]);
  });

  it('generates ids when the provider never sends any', () => {
    const withIndex = assembleChunks([
      tools({ index: 0, function: { name: 'a', arguments: '{}' } }),
      tools({ index: 1, function: { name: 'b', arguments: '{}' } }),
    ]);
    expect(withIndex.toolCalls.map((c) => c.id)).toEqual(['call_0', 'call_1']);
    const bare = assembleChunks([tools({ function: { name: 'solo', arguments: '{"a":1}' } })]);
    expect(bare.toolCalls).toEqual([{ id: 'call_0', name: 'solo', arguments: '{"a":1}' }]);
  });

  it('keeps a name sent once, repeated, or in pieces', () => {
    const once = assembleChunks([
      tools({ index: 0, id: 'x', function: { name: 'get_weather', arguments: '' } }),
      tools({ index: 0, function: { arguments: '{}' } }),
    ]);
    const repeated = assembleChunks([
      tools({ index: 0, id: 'x', function: { name: 'get_weather', arguments: '{"a"' } }),
      tools({ index: 0, id: 'x', function: { name: 'get_weather', arguments: ':1}' } }),
    ]);
    const pieces = assembleChunks([
      tools({ index: 0, id: 'x', function: { name: 'get_', arguments: '' } }),
      tools({ index: 0, function: { name: 'weather', arguments: '{}' } }),
    ]);
    expect(once.toolCalls[0]?.name).toBe('get_weather');
    expect(repeated.toolCalls[0]).toEqual({ id: 'x', name: 'get_weather', arguments: '{"a":1}' });
    expect(pieces.toolCalls[0]?.name).toBe('get_weather');
  });

  it('turns arguments that only ever arrive as "" into {}', () => {
    const result = assembleChunks([
      tools({ index: 0, id: 'x', function: { name: 'now', arguments: '' } }),
      tools({ index: 0, function: { arguments: '' } }),
      tools({ index: 0, function: { arguments: null } }),
      finish('tool_calls'),
    ]);
    expect(result.toolCalls[0]?.arguments).toBe('{}');
  });

  it('drops a leading {} when the real JSON follows', () => {
    const result = assembleChunks([
      tools({ index: 0, id: 'x', function: { name: 'search', arguments: '{}' } }),
      tools({ index: 0, function: { arguments: '{"query":' } }),
      tools({ index: 0, function: { arguments: '"cats"}' } }),
    ]);
    expect(result.toolCalls[0]?.arguments).toBe('{"query":"cats"}');
    expect(JSON.parse(result.toolCalls[0]?.arguments ?? '')).toEqual({ query: 'cats' });
  });

  it('interleaves parallel calls by index', () => {
    const result = assembleChunks([
      tools(
        { index: 0, id: 'a', function: { name: 'one', arguments: '' } },
        { index: 1, id: 'b', function: { name: 'two', arguments: '' } },
      ),
      tools({ index: 1, function: { arguments: '{"b":' } }),
      tools({ index: 0, function: { arguments: '{"a":' } }),
      tools({ index: 0, function: { arguments: '1}' } }, { index: 1, function: { arguments: '2}' } }),
      finish('tool_calls'),
    ]);
    expect(result.toolCalls).toEqual([
      { id: 'a', name: 'one', arguments: '{"a":1}' },
      { id: 'b', name: 'two', arguments: '{"b":2}' },
    ]);
  });

  it('keeps usage that arrives before the last chunk', () => {
    const result = assembleChunks([
      delta({ content: 'Hi' }),
      { ...finish('stop'), usage: { prompt_tokens: 5, completion_tokens: 1 } },
      delta({ content: '' }),
    ]);
    expect(result.usage).toEqual({ promptTokens: 5, completionTokens: 1 });
  });

  it('takes the last of several running usage totals', () => {
    const result = assembleChunks([
      { ...delta({ content: 'a' }), usage: { prompt_tokens: 5, completion_tokens: 1 } },
      { ...delta({ content: 'b' }), usage: { prompt_tokens: 5, completion_tokens: 2 } },
    ]);
    expect(result.usage).toEqual({ promptTokens: 5, completionTokens: 2 });
  });

  it.each([
    [
      'OpenAI / OpenRouter / Anthropic-compat: details beside the counts, reasoning inside completion_tokens',
      {
        prompt_tokens: 1486,
        completion_tokens: 651,
        total_tokens: 2137,
        prompt_tokens_details: { cached_tokens: 1408, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 512 },
      },
      { promptTokens: 1486, completionTokens: 651, cachedPromptTokens: 1408, reasoningTokens: 512 },
    ],
    [
      'DeepSeek with only the cache misses',
      { prompt_tokens: 339, completion_tokens: 83, prompt_cache_miss_tokens: 19 },
      { promptTokens: 339, completionTokens: 83, cachedPromptTokens: 320 },
    ],
    [
      'Moonshot: cached_tokens at the top',
      { prompt_tokens: 900, completion_tokens: 20, cached_tokens: 768 },
      { promptTokens: 900, completionTokens: 20, cachedPromptTokens: 768 },
    ],
    [
      'reasoning left out of completion_tokens (total_tokens says so): added once, as output',
      {
        prompt_tokens: 758,
        completion_tokens: 102,
        total_tokens: 1725,
        completion_tokens_details: { reasoning_tokens: 865 },
      },
      { promptTokens: 758, completionTokens: 967, reasoningTokens: 865 },
    ],
    [
      'no details, zeros and junk: nothing invented',
      {
        prompt_tokens: 10,
        completion_tokens: 2,
        prompt_tokens_details: { cached_tokens: 0 },
        prompt_cache_hit_tokens: null,
      },
      { promptTokens: 10, completionTokens: 2 },
    ],
  ])('reads cached and reasoning tokens: %s', (_name, usage, want) => {
    const result = assembleChunks([{ ...finish('stop'), usage }]);
    expect(result.usage).toEqual(want);
  });

  it('leaves usage undefined when it never comes', () => {
    const result = assembleChunks([delta({ content: 'Hi' }), finish('stop')]);
    expect(result.usage).toBeUndefined();
    expect(result).not.toHaveProperty('usage');
  });

  it('survives usage-only and empty chunks', () => {
    const result = assembleChunks([
      usageOnly(3, 0),
      { choices: null },
      {},
      { choices: [{ index: 0, delta: null, finish_reason: null }] },
      delta({ content: 'ok' }),
      finish('stop'),
      usageOnly(3, 1),
    ]);
    expect(result).toEqual({
      content: 'ok',
      toolCalls: [],
      finishReason: 'stop',
      usage: { promptTokens: 3, completionTokens: 1 },
    });
  });

  it('accumulates refusal deltas without calling onText', () => {
    const onText = vi.fn();
    const result = assembleChunks(
      [delta({ content: null, refusal: '' }), delta({ refusal: 'No' }), delta({ refusal: ', sorry.' }), finish('stop')],
      onText,
    );
    expect(result.refusal).toBe('No, sorry.');
    expect(onText).not.toHaveBeenCalled();
  });

  it('reports finish `length` with the partial text', () => {
    const result = assembleChunks([delta({ content: 'The answer is' }), finish('length')]);
    expect(result.finishReason).toBe('length');
    expect(result.content).toBe('The answer is');
  });

  it('maps other providers’ finish reasons and unknown ones', () => {
    const reason = (r: string) => assembleChunks([finish(r)]).finishReason;
    expect(reason('MAX_TOKENS')).toBe('length');
    expect(reason('eos')).toBe('stop');
    expect(reason('tool_use')).toBe('tool_calls');
    expect(reason('content_filter')).toBe('content_filter');
    expect(reason('something_new')).toBe('unknown');
    expect(assembleChunks([delta({ content: 'cut off' })]).finishReason).toBe('unknown');
  });

  it('calls onText once per visible piece, in order, as chunks arrive', () => {
    const seen: string[] = [];
    const assembler = new StreamAssembler((d) => seen.push(d));
    assembler.push(delta({ content: '' }));
    expect(seen).toEqual([]);
    assembler.push(delta({ content: 'Hel' }));
    expect(seen).toEqual(['Hel']);
    assembler.push(delta({ content: 'lo' }));
    assembler.push(tools({ index: 0, id: 'x', function: { name: 'f', arguments: '{}' } }));
    expect(seen).toEqual(['Hel', 'lo']);
    expect(assembler.result().content).toBe('Hello');
  });

  it('ignores choices other than the first', () => {
    const result = assembleChunks([
      {
        choices: [
          { index: 1, delta: { content: 'other' } },
          { index: 0, delta: { content: 'mine' } },
        ],
      },
    ]);
    expect(result.content).toBe('mine');
  });
});

describe('normaliseArguments', () => {
  it.each([
    ['', '{}'],
    ['  ', '{}'],
    ['{}', '{}'],
    ['{ }{"a":1}', '{"a":1}'],
    ['{}\n{"a":1}', '{"a":1}'],
    ['{"a":{}}', '{"a":{}}'],
    ['not json', 'not json'],
  ])('%j becomes %j', (raw, expected) => {
    expect(normaliseArguments(raw)).toBe(expected);
  });
});
