/**
 * Issue 46, item 1: a chat call fails over to the next endpoint of MODEL_FALLBACKS when the one
 * before fails before any text reached the user; after that the turn ends with the usual error
 * and nothing is said twice. Two loopback fake providers, the real app over POST /api/chat.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig, ConfigError } from '../../src/config/index.js';
import { isAdminPort } from '../../src/data/rpc-port.js';
import { turnListRow } from '../../src/data/rows.js';
import { createLlmClient } from '../../src/provider/openai.js';
import { captureLogs } from '../helpers/harness.js';
import { freePort } from '../helpers/free-port.js';
import type { FakeResponse } from '../fakes/openai-server.js';
import {
  FALLBACK_KEY,
  labelOf,
  modelRequests,
  startChainRig,
  streamedText,
  type ChainRig,
} from './failover-helpers.js';

let rig: ChainRig;
beforeAll(async () => {
  // A breaker that never opens here: this file is about failing over (failover-breaker.test.ts opens it).
  rig = await startChainRig({ env: { MODEL_BREAKER_FAILURES: '1000' } });
});
afterAll(() => rig.close());
beforeEach(() => {
  rig.primary.reset();
  rig.fallback.reset();
});

const chats = (fake: ChainRig['primary']) => fake.requestsTo('/chat/completions');

describe('a failure before any text fails over to the next endpoint', () => {
  const failures: [string, FakeResponse][] = [
    ['429', { status: 429 }],
    ['500', { status: 500 }],
    ['503', { status: 503 }],
    ['no answer at all (timeout)', { hang: true }],
    ['a stream that stalls before its first token', { text: 'never seen', stallAfterChunks: 1 }],
    ['a stream cut before its first token', { text: 'never seen', dropAfterChunks: 1 }],
  ];
  it.each(failures)('%s', async (_name, failure) => {
    rig.primary.script(failure);
    rig.fallback.script({ text: 'From the fallback.' });
    if ('text' in failure || 'hang' in failure) rig.primary.allowUnused();
    const events = await rig.askStreamed('Hello?');
    expect(events.find((e) => e.event === 'reply')?.data).toMatchObject({ text: 'From the fallback.' });
    // Said once: nothing of the failed attempt reached the user.
    expect(streamedText(events)).toBe('From the fallback.');
    expect(events.some((e) => e.event === 'error')).toBe(false);
    const sent = chats(rig.fallback)[0]!;
    expect(sent.body.model).toBe('gpt-fallback');
    expect(sent.headers.authorization).toBe(`Bearer ${FALLBACK_KEY}`);
    // The same request the primary had: the step starts again.
    expect(sent.body.messages).toEqual(chats(rig.primary)[0]!.body.messages);
  });

  it('the ledger row names the model that answered; a turn without failover names the main one', async () => {
    const data = rig.h.sb.data;
    if (!isAdminPort(data)) throw new Error('the harness port offers admin functions');
    const newest = async () => (await data.admin('list_turns', { offset: 0, limit: 1 }, turnListRow))[0]?.model;
    rig.primary.script({ status: 503 });
    rig.fallback.script({ text: 'Priced at the fallback.' });
    expect((await rig.ask('Who answered?')).status).toBe(200);
    expect(await newest()).toBe('gpt-fallback');
    rig.primary.script({ text: 'The main endpoint.' });
    expect((await rig.ask('And now?')).status).toBe(200);
    expect(await newest()).toBe('gpt-test');
  });

  it('a 400 (the request, not the endpoint) does not fail over', async () => {
    rig.primary.script({ status: 400 });
    const { status, body } = await rig.ask('Hello?');
    expect(status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(body)).toMatch(/could not handle that request/);
    expect(chats(rig.fallback)).toHaveLength(0);
  });

  it('counts each endpoint’s calls by outcome in switchboard_model_requests_total', async () => {
    const primary = labelOf('gpt-test', rig.primary);
    const fallback = labelOf('gpt-fallback', rig.fallback);
    const before = [await modelRequests(primary, 'server'), await modelRequests(fallback, 'ok')];
    rig.primary.script({ status: 502 });
    rig.fallback.script({ text: 'Counted.' });
    await rig.ask('Count me');
    expect(await modelRequests(primary, 'server')).toBe(before[0]! + 1);
    expect(await modelRequests(fallback, 'ok')).toBe(before[1]! + 1);
  });

  it('says in the log which endpoint failed and where the call went', async () => {
    rig.primary.script({ status: 500 });
    rig.fallback.script({ text: 'Logged.' });
    await rig.ask('Log it');
    const line = rig.h.logs.lines.findLast((l) => l.code === 'model_failover');
    expect(line).toMatchObject({
      level: 40,
      endpoint: labelOf('gpt-test', rig.primary),
      kind: 'server',
      next: [labelOf('gpt-fallback', rig.fallback)],
    });
    expect(JSON.stringify(line)).not.toContain(FALLBACK_KEY);
  });
});

describe('after text reached the user', () => {
  it('ends the turn with the usual clear error, never repeats text and never asks the fallback', async () => {
    rig.primary.script({ text: 'The first words and then the line goes dead', dropAfterChunks: 4 });
    rig.primary.allowUnused();
    const events = await rig.askStreamed('Tell me a long story');
    const shown = streamedText(events);
    expect(shown).toBe('The first words');
    expect(events.find((e) => e.event === 'error')?.data).toMatchObject({
      code: 'llm_unavailable',
      message: 'I can’t reach the language model right now. Please try again in a minute.',
    });
    expect(events.some((e) => e.event === 'reply')).toBe(false);
    expect(chats(rig.fallback)).toHaveLength(0);
  });

  it('a stream that stalls after its first words ends the same way', async () => {
    rig.primary.script({ text: 'Half a sentence and then', stallAfterChunks: 3 });
    const events = await rig.askStreamed('Go on');
    expect(streamedText(events)).toBe('Half a');
    expect(events.find((e) => e.event === 'error')?.data).toMatchObject({ code: 'llm_unavailable' });
    expect(chats(rig.fallback)).toHaveLength(0);
  });
});

describe('a step after tool calls', () => {
  it('fails over by starting that step again on the fallback, without the primary’s reasoning', async () => {
    // Step 1 on the primary: reasoning (DeepSeek's reasoning_content) and a tool call.
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'gpt-test', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    rig.primary.script({
      sse:
        chunk({ role: 'assistant', reasoning_content: 'The user wants the time; I should call get_time.' }) +
        chunk({
          tool_calls: [
            { index: 0, id: 'call_1', type: 'function', function: { name: 'get_time', arguments: '{"tz":"UTC"}' } },
          ],
        }) +
        chunk({}, 'tool_calls') +
        'data: [DONE]\n\n',
    });
    // Step 2: the primary is down; the fallback gets the whole step.
    rig.primary.script({ status: 500 });
    rig.fallback.script({ text: 'It is noon.' });
    const { body } = await rig.ask('What time is it?');
    expect(body.response).toBe('It is noon.');
    expect(body.toolCalls).toMatchObject([{ tool: 'get_time', ok: true }]);
    const primaryStep2 = chats(rig.primary)[1]!.body.messages as Record<string, unknown>[];
    const fallbackStep2 = chats(rig.fallback)[0]!.body.messages as Record<string, unknown>[];
    // The primary would have had its own reasoning back; the fallback never sees it.
    expect(primaryStep2.find((m) => m.tool_calls)?.reasoning_content).toContain('I should call get_time');
    const call = fallbackStep2.find((m) => m.tool_calls)!;
    expect(call).not.toHaveProperty('reasoning_content');
    expect(call.tool_calls).toMatchObject([{ id: 'call_1', function: { name: 'get_time' } }]);
    expect(fallbackStep2.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
  });
});

describe('a primary that refuses connections', () => {
  let refusing: ChainRig;
  beforeAll(async () => {
    refusing = await startChainRig({ primaryUrl: `http://127.0.0.1:${await freePort()}/v1` });
  });
  afterAll(() => refusing.close());

  it('fails over at once (no retries on the dead endpoint)', async () => {
    refusing.fallback.script({ text: 'Nobody home over there; here I am.' });
    const { body } = await refusing.ask('Anyone?');
    expect(body.response).toBe('Nobody home over there; here I am.');
    const line = refusing.h.logs.lines.findLast((l) => l.code === 'model_failover');
    expect(line).toMatchObject({ kind: 'unreachable' });
  });
});

describe('MODEL_FALLBACKS', () => {
  it('a bad value stops the start naming the setting (exit 2 like every setting)', () => {
    const bad = [
      'not json',
      '{"baseUrl": "https://x/v1"}',
      '[{"baseUrl": "not a url", "model": "m"}]',
      '[{"baseUrl": "https://x/v1", "model": ""}]',
      '[{"baseUrl": "https://x/v1", "model": "m", "apiKeyEnv": "has space"}]',
      '[{"baseUrl": "https://x/v1", "model": "m", "extra": 1}]',
    ];
    for (const value of bad) {
      let error: unknown;
      try {
        parseConfig({ OPENAI_API_KEY: 'k', MODEL_FALLBACKS: value });
      } catch (err) {
        error = err;
      }
      expect(error, value).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.join('\n'), value).toMatch(/^MODEL_FALLBACKS/);
    }
    expect(parseConfig({ OPENAI_API_KEY: 'k' }).MODEL_FALLBACKS).toEqual([]);
  });

  it('a key variable that is not set stops the start too', () => {
    const config = parseConfig({
      OPENAI_API_KEY: 'k',
      MODEL_FALLBACKS: '[{"baseUrl": "https://api.groq.com/openai/v1", "model": "m", "apiKeyEnv": "UNSET_KEY_VAR"}]',
    });
    expect(() => createLlmClient(config, captureLogs().log, {})).toThrow(ConfigError);
    expect(() => createLlmClient(config, captureLogs().log, {})).toThrow(
      /MODEL_FALLBACKS\[0\]\.apiKeyEnv: UNSET_KEY_VAR is not set/,
    );
  });
});
