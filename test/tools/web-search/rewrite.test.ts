import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLlmClient } from '../../../src/provider/openai.js';
import type { LlmClient } from '../../../src/contract/llm.js';
import { parseConfig } from '../../../src/config/index.js';
import { silentLogger } from '../../../src/telemetry/logger.js';
import { cleanModelQuery, rewriteSearchQuery, skipReason } from '../../../src/tools/web-search/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.js';
import { sentMessages } from '../../helpers/harness.js';

/** Not the machine's year: the year must come from the injected clock. */
const now = () => new Date('2031-05-01T09:00:00Z');
let fake: FakeOpenAI;
let llm: LlmClient;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  const config = parseConfig({
    OPENAI_API_KEY: 'sk-test-rewrite',
    OPENAI_BASE_URL: fake.url,
    OPENAI_MAX_RETRIES: '0',
    OPENAI_TIMEOUT_MS: '5000',
  });
  llm = createLlmClient(config, silentLogger());
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const rewrite = (query: string, timeoutMs = 2_000, signal = new AbortController().signal) =>
  rewriteSearchQuery(query, { llm, now, signal, timeoutMs });

describe('query rewriting: skip rules', () => {
  it('searches queries of three words or fewer as they are, without asking the model', async () => {
    for (const q of ['TypeScript generics', 'React hooks tutorial', 'pgvector']) {
      expect(await rewrite(q)).toEqual({ query: q, original: q, reason: 'short', yearAdded: false });
    }
    expect(skipReason('one two three four')).toBeUndefined();
    expect(fake.requests).toHaveLength(0);
  });

  it('searches URLs verbatim, even "latest" ones (a year would break the URL)', async () => {
    const q = 'what is the latest on https://react.dev/blog/2024/12/05/react-19 please';
    expect(await rewrite(q)).toMatchObject({ query: q, reason: 'url', yearAdded: false });
    expect(skipReason('summarise www.example.com/pricing for me please')).toBe('url');
    expect(fake.requests).toHaveLength(0);
  });

  it('searches code blocks verbatim', async () => {
    const q = 'why does ```const [a, b] = useState()``` throw in the latest React';
    expect(await rewrite(q)).toMatchObject({ query: q, reason: 'code', yearAdded: false });
    expect(fake.requests).toHaveLength(0);
  });
});

describe('query rewriting: the model call', () => {
  it('asks the model at temperature 0 for at most 50 tokens and uses its one-line query', async () => {
    fake.script({ text: 'weather NYC' });
    const q = 'Can you please tell me what the weather is like in NYC?';
    expect(await rewrite(q)).toEqual({ query: 'weather NYC', original: q, reason: 'rewritten', yearAdded: false });
    const request = fake.lastRequest('/chat/completions')!.body;
    expect(request).toMatchObject({ temperature: 0, max_tokens: 50 });
    expect(request.tools).toBeUndefined();
    const messages = sentMessages(request);
    expect(messages[0]).toMatchObject({ role: 'system' });
    expect(messages[1]).toEqual({ role: 'user', content: q });
  });

  it('leaves an already good query as the model returns it', async () => {
    fake.script({ text: 'TypeScript generics tutorial for beginners' });
    const q = 'TypeScript generics tutorial for beginners';
    expect(await rewrite(q)).toMatchObject({ query: q, reason: 'rewritten' });
  });
});

describe('query rewriting: the current year', () => {
  it('adds the injected clock’s year to latest / current / recent questions the model rewrote without one', async () => {
    fake.script({ text: 'latest React features' });
    expect(await rewrite('What are the latest React features?')).toMatchObject({
      query: 'latest React features 2031',
      yearAdded: true,
    });
    // The model is told the year too.
    expect(String(sentMessages(fake.lastRequest('/chat/completions')!.body)[0]?.content)).toContain('2031');
  });

  it('does not add it twice when the model already did, nor to questions about a given year', async () => {
    fake.script({ text: '"latest React features 2031"' }, { text: 'current EU VAT rates 2024' });
    expect(await rewrite('What are the latest React features?')).toMatchObject({
      query: 'latest React features 2031',
      yearAdded: false,
    });
    expect(await rewrite('What were the current EU VAT rates in 2024?')).toMatchObject({
      query: 'current EU VAT rates 2024',
      yearAdded: false,
    });
  });

  it('adds it to short temporal queries without a model call, and only to temporal ones', async () => {
    expect(await rewrite('recent Node releases')).toMatchObject({
      query: 'recent Node releases 2031',
      reason: 'short',
      yearAdded: true,
    });
    expect(await rewrite('currently trending repos')).toMatchObject({ query: 'currently trending repos 2031' });
    expect(await rewrite('Node releases')).toMatchObject({ query: 'Node releases', yearAdded: false });
    expect(fake.requests).toHaveLength(0);
  });
});

describe('query rewriting: fallbacks', () => {
  it('retries once on a transient failure, then searches the original query', async () => {
    const q = 'Can you please tell me what the weather is like in NYC?';
    fake.script({ status: 500 }, { text: 'weather NYC' });
    expect(await rewrite(q)).toEqual({ query: 'weather NYC', original: q, reason: 'rewritten', yearAdded: false });
    expect(fake.requestsTo('/chat/completions')).toHaveLength(2);
    fake.reset();
    fake.script({ status: 503 }, { status: 429, headers: { 'retry-after': '0' } });
    expect(await rewrite(q)).toEqual({ query: q, original: q, reason: 'failed', yearAdded: false });
    expect(fake.requestsTo('/chat/completions')).toHaveLength(2); // one retry only, the SDK's own are off
    fake.reset();
    fake.script({ status: 400 });
    expect(await rewrite(q)).toMatchObject({ query: q, reason: 'failed' });
    expect(fake.requestsTo('/chat/completions')).toHaveLength(1); // not transient: no retry
  });

  it('asks REWRITE_MODEL when given, on the same endpoint', async () => {
    fake.script({ text: 'weather NYC' });
    const q = 'Can you please tell me what the weather is like in NYC?';
    expect(
      await rewriteSearchQuery(q, {
        llm,
        now,
        signal: new AbortController().signal,
        timeoutMs: 2_000,
        model: 'gpt-fast-mini',
      }),
    ).toMatchObject({ query: 'weather NYC' });
    expect(fake.lastRequest('/chat/completions')!.body.model).toBe('gpt-fast-mini');
  });

  it('searches the original query (with its year) when the model is too slow', async () => {
    fake.script({ hang: true });
    const q = 'What are the latest React features?';
    expect(await rewrite(q, 150)).toEqual({ query: `${q} 2031`, original: q, reason: 'timeout', yearAdded: true });
  });

  it('searches the original query when the answer is not a query', async () => {
    fake.script({ text: ' ' }, { text: 'x'.repeat(400) });
    const q = 'please find the best coffee shops around Aarhus';
    expect(await rewrite(q)).toMatchObject({ query: q, reason: 'unusable' });
    expect(await rewrite(q)).toMatchObject({ query: q, reason: 'unusable' });
  });

  it('gives up when the turn itself is cancelled', async () => {
    fake.script({ hang: true });
    const turn = new AbortController();
    const pending = rewrite('What are the latest React features?', 5_000, turn.signal);
    setTimeout(() => turn.abort(), 20);
    await expect(pending).rejects.toThrow();
  });

  it('cleans the model’s answer to one line without quotes or labels', () => {
    expect(cleanModelQuery('Search query: "weather NYC"\nThis query drops filler.')).toBe('weather NYC');
    expect(cleanModelQuery('\n  `react   19 features`  ')).toBe('react 19 features');
    expect(cleanModelQuery('')).toBeUndefined();
  });
});
