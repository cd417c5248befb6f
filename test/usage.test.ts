/**
 * The token ledger and budgets: one row per turn with the usage the LLM reported (cached and
 * reasoning tokens included) and its cost at the bundled catalogue's price or MODEL_PRICES,
 * totals over HTTP (`GET /api/usage`) and in `npm run usage`, and budgets (tokens and USD)
 * refusing a turn with the reset time while other users go on; on PGlite and on the real
 * Postgres (cost also through the Supabase transport).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/adapters/http/app.js';
import { isAdminPort, type AdminDataPort } from '../src/data/index.js';
import { calcPrice } from '@pydantic/genai-prices';
import { startFakeOpenAI, type FakeOpenAI } from './fakes/openai-server.js';
import { openPgliteTestPort, openPostgresTestPort, TEST_DATABASE_URL, type TestDatabase } from './helpers/db.js';
import { collect, errorOf, message, replyOf, startHarness, type Harness } from './helpers/harness.js';
import { testTools } from './helpers/test-tools.js';
import { eventBody, mention, postEvent, sign, startSlackRig } from './adapters/slack/setup.js';
import { peer } from './helpers/peer.js';
import { TEST_API_TOKEN } from './helpers/tokens.js';
import { sqlBackedStores, type SqlBackedStore } from './helpers/ledger-stores.js';

const run = promisify(execFile);
let llm: FakeOpenAI;
beforeAll(async () => {
  llm = await startFakeOpenAI();
});
afterAll(() => llm.close());

/** A turn with a tool call: the LLM reports 100/10 then 120/5 tokens. */
function scriptToolTurn() {
  llm.script(
    {
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
      usage: { prompt_tokens: 100, completion_tokens: 10 },
    },
    { text: 'Rainy.', usage: { prompt_tokens: 120, completion_tokens: 5 } },
  );
}

const stores: [string, () => Promise<{ data?: AdminDataPort; db?: TestDatabase }>][] = [['PGlite', async () => ({})]];
if (TEST_DATABASE_URL)
  stores.push([
    'Postgres',
    async () => {
      const { port, db } = await openPostgresTestPort({ seed: false });
      return { data: port, db };
    },
  ]);

describe.each(stores)('the token ledger on %s', (_name, open) => {
  let h: Harness;
  let db: TestDatabase | undefined;
  let data: AdminDataPort | undefined;
  beforeAll(async () => {
    ({ data, db } = await open());
    h = await startHarness({ llm, tools: testTools, ...(data ? { data } : {}) });
  }, 60_000);
  afterAll(async () => {
    await h.close();
    await data?.close();
    await db?.drop();
  });

  it('records one row per turn with the usage the LLM reported, and /api/usage sums it by thread, user and tenant', async () => {
    const thread = `ledger-${Date.now()}`;
    scriptToolTurn();
    await collect(h.sb.agent.handle(message('weather?', { threadId: thread, userId: 'u-ledger' })));
    llm.script({ text: 'Again.', usage: { prompt_tokens: 50, completion_tokens: 7 } });
    await collect(h.sb.agent.handle(message('and now?', { threadId: thread, userId: 'u-ledger' })));

    const app = createHttpApp({ agent: h.sb.agent, log: h.sb.log, data: h.sb.data, apiToken: TEST_API_TOKEN });
    const auth = { headers: { authorization: `Bearer ${TEST_API_TOKEN}` } };
    const get = async (q: string) => (await app.request(`/api/usage?${q}`, auth)).json();
    expect(await get(`threadId=${thread}`)).toMatchObject({
      tenant: 'default',
      threadId: thread,
      promptTokens: 270,
      completionTokens: 22,
      turns: 2,
    });
    expect(await get('userId=u-ledger')).toMatchObject({ promptTokens: 270, completionTokens: 22, turns: 2 });
    expect(await get('userId=nobody')).toMatchObject({ promptTokens: 0, completionTokens: 0, turns: 0 });
    const tenant = (await get('tenant=default')) as { promptTokens: number; turns: number };
    expect(tenant.promptTokens).toBeGreaterThanOrEqual(270);
    // Bad ranges and unknown tenants are clear errors.
    expect((await app.request('/api/usage?from=2026-02-30', auth)).status).toBe(400);
    expect((await app.request('/api/usage?from=2026-11-10&to=2026-11-01', auth)).status).toBe(400);
    expect(await (await app.request('/api/usage?tenant=nope', auth)).json()).toEqual({
      error: { code: 'not_found', message: 'No tenant "nope".' },
    });
  });

  it('writes a burst of turns’ rows in a few statements, every row committed before its turn hears so; a bad row loses only itself', async () => {
    const port = h.sb.data;
    if (!isAdminPort(port)) throw new Error('the harness should hold the real data port');
    const tenant = await port.defaultTenant();
    const thread = `burst-${Date.now()}`;
    const calls: string[] = [];
    const rpc = port.transport.rpc.bind(port.transport);
    port.transport.rpc = (fn, args, opts) => (calls.push(fn), rpc(fn, args, opts));
    try {
      const row = (i: number) => ({
        tenantId: tenant.id,
        platform: 'slack',
        channelId: 'C1',
        threadId: thread,
        userId: `u${i}`,
        model: 'gpt-test',
        promptTokens: 10,
        completionTokens: i,
        toolCalls: 1,
      });
      const committed: number[] = [];
      await Promise.all(Array.from({ length: 200 }, (_, i) => port.recordUsage(row(i)).then(() => committed.push(i))));
      expect(committed).toHaveLength(200);
      if (port.kind === 'pglite') {
        // In process, rows gather for one event-loop turn: all 200 ended in this one, so one statement.
        expect(calls).toEqual(['record_turn_usages']);
      } else {
        // The first row goes alone (nothing was in flight); the rest queued behind it and went together.
        expect(calls.length).toBeLessThanOrEqual(3);
        expect(calls[0]).toBe('record_turn_usage');
        expect(calls.slice(1).every((fn) => fn === 'record_turn_usages')).toBe(true);
      }
      expect(
        await port.usageTotals({
          tenant: tenant.id,
          from: new Date(Date.now() - 60_000),
          to: new Date(Date.now() + 60_000),
          threadId: thread,
        }),
      ).toEqual({
        promptTokens: 2_000,
        completionTokens: 19_900,
        turns: 200,
        cachedPromptTokens: 0,
        reasoningTokens: 0,
        costUsd: 0,
        unpricedTurns: 200,
      });

      // A row naming a tenant that does not exist fails alone; the rows batched with it still land.
      const results = await Promise.allSettled(
        [row(1), { ...row(2), tenantId: '00000000-0000-4000-8000-000000000000' }, row(3), row(4)].map((r) =>
          port.recordUsage(r),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      expect(
        await port.usageTotals({
          tenant: tenant.id,
          from: new Date(Date.now() - 60_000),
          to: new Date(Date.now() + 60_000),
          threadId: thread,
        }),
      ).toMatchObject({ turns: 203 });
    } finally {
      port.transport.rpc = rpc;
    }
  });
});

it('closing the data port first writes the ledger rows of turns that already ended (a graceful shutdown loses none)', async () => {
  const port = await openPgliteTestPort();
  const tenant = await port.defaultTenant();
  const settled: string[] = [];
  const writes = Array.from({ length: 50 }, (_, i) =>
    port
      .recordUsage({
        tenantId: tenant.id,
        platform: 'http',
        channelId: 'c',
        threadId: 'closing',
        userId: `u${i}`,
        model: 'm',
        promptTokens: 1,
        completionTokens: 1,
        toolCalls: 0,
      })
      .then(
        () => settled.push('ok'),
        () => settled.push('failed'),
      ),
  );
  await port.close();
  expect(settled).toEqual(Array(50).fill('ok'));
  await Promise.all(writes);
});

/**
 * The catalogue's price of gpt-4o-mini, read here from the bundled catalogue itself (a price
 * update must not break the test), in USD per 1M tokens.
 */
function cataloguePrice(model: string) {
  const hit = calcPrice({ input_tokens: 0, output_tokens: 0 }, model);
  const p = hit?.model_price;
  if (!p || typeof p.input_mtok !== 'number' || typeof p.output_mtok !== 'number')
    throw new Error(`the catalogue has no flat price for ${model}`);
  const cached = typeof p.cache_read_mtok === 'number' ? p.cache_read_mtok : p.input_mtok;
  return { input: p.input_mtok, cachedInput: cached, output: p.output_mtok, contextWindow: hit.model.context_window };
}

/**
 * A two-step turn whose usage carries the details: OpenAI's names on the first step, DeepSeek's
 * on the second. Summed: 2,200 prompt (1,600 of them cached), 80 completion (20 reasoning).
 */
function scriptDetailedTurn() {
  llm.script(
    {
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
      usage: {
        prompt_tokens: 1_000,
        completion_tokens: 50,
        prompt_tokens_details: { cached_tokens: 600 },
        completion_tokens_details: { reasoning_tokens: 20 },
      },
    },
    {
      text: 'Rainy.',
      usage: {
        prompt_tokens: 1_200,
        completion_tokens: 30,
        prompt_cache_hit_tokens: 1_000,
        prompt_cache_miss_tokens: 200,
      },
    },
  );
}
const DETAILED = { prompt: 2_200, cached: 1_600, completion: 80, reasoning: 20 };

type CostStore = SqlBackedStore;
const costStores = sqlBackedStores('cost in the ledger on Postgres');

describe.each(costStores)('cost in the ledger on %s', (_name, open) => {
  let data: AdminDataPort;
  let store: CostStore;
  beforeAll(async () => {
    store = await open();
    data = store.data;
  }, 60_000);
  afterAll(() => store.close());

  const ledgerRow = async (thread: string) => {
    const rows = await store.sql.query(
      'select prompt_tokens, completion_tokens, cached_prompt_tokens, reasoning_tokens, cost_usd from public.token_ledger where thread_id = $1',
      [thread],
    );
    expect(rows).toHaveLength(1);
    const r = rows[0]!;
    return {
      prompt: Number(r.prompt_tokens),
      completion: Number(r.completion_tokens),
      cached: Number(r.cached_prompt_tokens),
      reasoning: Number(r.reasoning_tokens),
      cost: r.cost_usd === null ? null : Number(r.cost_usd),
    };
  };
  const usageOf = async (h: Harness, thread: string) => {
    // /api/usage always needs API_TOKEN (closed by default).
    const app = createHttpApp({ agent: h.sb.agent, log: h.sb.log, data: h.sb.data, apiToken: TEST_API_TOKEN });
    const auth = { headers: { authorization: `Bearer ${TEST_API_TOKEN}` } };
    return (await (await app.request(`/api/usage?threadId=${thread}`, auth)).json()) as Record<string, unknown>;
  };

  it('keeps the cached and reasoning tokens the model reported and the cost at the catalogue’s price, in the row and in /api/usage', async () => {
    const h = await startHarness({ llm, tools: testTools, data, env: { OPENAI_MODEL: 'gpt-4o-mini' } });
    try {
      const thread = `cost-${Date.now()}`;
      scriptDetailedTurn();
      const events = await collect(h.sb.agent.handle(message('weather?', { threadId: thread })));
      expect(replyOf(events)?.text).toBe('Rainy.');
      const price = cataloguePrice('gpt-4o-mini');
      // Cached tokens at the cached rate, the rest of the prompt at the input rate; reasoning is
      // part of the completion tokens (OpenAI's and DeepSeek's count) and billed once.
      const expected =
        ((DETAILED.prompt - DETAILED.cached) * price.input +
          DETAILED.cached * price.cachedInput +
          DETAILED.completion * price.output) /
        1_000_000;
      expect(price.cachedInput).toBeLessThan(price.input); // else the test could not tell the rates apart
      const row = await ledgerRow(thread);
      expect(row).toEqual({ ...DETAILED, cost: expect.any(Number) });
      expect(row.cost).toBeCloseTo(expected, 9);
      expect(await usageOf(h, thread)).toMatchObject({
        promptTokens: DETAILED.prompt,
        completionTokens: DETAILED.completion,
        cachedPromptTokens: DETAILED.cached,
        reasoningTokens: DETAILED.reasoning,
        costUsd: expect.closeTo(expected, 9),
        unpricedTurns: 0,
        turns: 1,
      });
      // HISTORY_MAX_TOKENS unset: 5% of the catalogue's context window, within 2,000–32,000.
      expect(price.contextWindow).toBeGreaterThan(0);
      expect(h.sb.config.HISTORY_MAX_TOKENS).toBe(
        Math.min(32_000, Math.max(2_000, Math.round(price.contextWindow! * 0.05))),
      );
    } finally {
      await h.close();
    }
  });

  it('prices by MODEL_PRICES over the catalogue, and an explicit HISTORY_MAX_TOKENS wins', async () => {
    const prices = { 'gpt-4o-mini': { input: 3, cachedInput: 0.5, output: 7 } };
    const h = await startHarness({
      llm,
      tools: testTools,
      data,
      env: { OPENAI_MODEL: 'gpt-4o-mini', MODEL_PRICES: JSON.stringify(prices), HISTORY_MAX_TOKENS: '900' },
    });
    try {
      const thread = `own-price-${Date.now()}`;
      scriptDetailedTurn();
      await collect(h.sb.agent.handle(message('weather?', { threadId: thread })));
      const expected = ((2_200 - 1_600) * 3 + 1_600 * 0.5 + 80 * 7) / 1_000_000;
      expect((await ledgerRow(thread)).cost).toBeCloseTo(expected, 9);
      expect(await usageOf(h, thread)).toMatchObject({ costUsd: expect.closeTo(expected, 9) });
      expect(h.sb.config.HISTORY_MAX_TOKENS).toBe(900);
    } finally {
      await h.close();
    }
  });

  it('sends the history a model’s context window allows when HISTORY_MAX_TOKENS is unset (MODEL_PRICES names the window)', async () => {
    // An 8k window: 5% is under the 2,000-token floor, so the history keeps about 2,000 tokens.
    const prices = { 'house-llama': { input: 0, output: 0, contextWindow: 8_192 } };
    const h = await startHarness({
      llm,
      tools: testTools,
      data,
      env: { OPENAI_MODEL: 'house-llama', MODEL_PRICES: JSON.stringify(prices) },
    });
    try {
      expect(h.sb.config.HISTORY_MAX_TOKENS).toBe(2_000);
      const thread = `window-${Date.now()}`;
      // Two messages of about 1,500 tokens each: both fit in 6,000, only the newer in 2,000.
      const long = (tag: string) => `${tag} ${'lorem ipsum dolor sit amet '.repeat(270)}`;
      for (const tag of ['FIRST', 'SECOND', 'THIRD']) {
        llm.script({ text: 'Noted.', usage: { prompt_tokens: 10, completion_tokens: 1 } });
        await collect(h.sb.agent.handle(message(tag === 'THIRD' ? 'THIRD' : long(tag), { threadId: thread })));
      }
      const third = JSON.stringify(llm.requestsTo('/chat/completions').at(-1)!.body);
      expect(third).toContain('SECOND lorem');
      expect(third).not.toContain('FIRST lorem');
      // Free at zero prices: a cost of 0, not an unknown one.
      expect(await usageOf(h, thread)).toMatchObject({ costUsd: 0, unpricedTurns: 0, turns: 3 });
    } finally {
      await h.close();
    }
  });

  it('an unknown model’s turns have no cost, said once in the log, and /api/usage counts them as unpriced', async () => {
    const h = await startHarness({ llm, tools: testTools, data, env: { OPENAI_MODEL: 'house-llama-7b-q4' } });
    try {
      const thread = `unpriced-${Date.now()}`;
      llm.script({ text: 'One.', usage: { prompt_tokens: 40, completion_tokens: 4 } });
      await collect(h.sb.agent.handle(message('one', { threadId: thread })));
      expect(await ledgerRow(thread)).toEqual({ prompt: 40, completion: 4, cached: 0, reasoning: 0, cost: null });
      llm.script({ text: 'Two.', usage: { prompt_tokens: 60, completion_tokens: 6 } });
      await collect(h.sb.agent.handle(message('two', { threadId: `${thread}-2` })));
      const warnings = h.logs.lines.filter((l) => String(l.msg).startsWith('no price known for model'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ level: 40, model: 'house-llama-7b-q4' });
      expect(String(warnings[0]!.msg)).toContain('MODEL_PRICES');
      expect(await usageOf(h, thread)).toMatchObject({ promptTokens: 40, costUsd: 0, unpricedTurns: 1, turns: 1 });
      // No context window known: the history keeps today's 6,000 tokens.
      expect(h.sb.config.HISTORY_MAX_TOKENS).toBe(6_000);
    } finally {
      await h.close();
    }
  });
});

describe('budgets', () => {
  it('refuses a user over the daily budget with 429, resetAt and Retry-After; other users go on; the next UTC day it resets', async () => {
    const clock = { now: new Date() };
    const h = await startHarness({
      llm,
      tools: testTools,
      now: () => clock.now,
      env: { TOKEN_BUDGET_PER_USER_DAILY: '200' },
    });
    try {
      const app = createHttpApp({ agent: h.sb.agent, log: h.sb.log, data: h.sb.data });
      // Anonymous (loopback) callers are known by their address, not by a userId they send.
      const addresses: Record<string, string> = { alice: '127.0.0.2', bob: '127.0.0.3' };
      const chat = (userId: string) =>
        app.request(
          '/api/chat',
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ message: 'weather?', userId }),
          },
          peer(addresses[userId]),
        );
      scriptToolTurn(); // 235 tokens: over 200 once recorded
      expect((await chat('alice')).status).toBe(200);

      const refused = await chat('alice');
      expect(refused.status).toBe(429);
      const body = (await refused.json()) as { error: { code: string; message: string; resetAt: string } };
      const midnight = new Date(
        Date.UTC(clock.now.getUTCFullYear(), clock.now.getUTCMonth(), clock.now.getUTCDate() + 1),
      );
      expect(body.error).toEqual({
        code: 'budget_exhausted',
        message: expect.stringMatching(/today’s token budget \(200 tokens\)\. It resets at 00:00 UTC/),
        resetAt: midnight.toISOString(),
      });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(llm.remaining()).toBe(0); // the refused turn never reached the model

      llm.script({ text: 'Hi Bob.' });
      expect((await chat('bob')).status).toBe(200);

      clock.now = new Date(midnight.getTime() + 60_000);
      llm.script({ text: 'A new day.' });
      expect((await chat('alice')).status).toBe(200);
    } finally {
      await h.close();
    }
  });

  it('refuses every user of a tenant over its monthly budget, naming the reset date', async () => {
    const h = await startHarness({ llm, tools: testTools, env: { TOKEN_BUDGET_PER_TENANT_MONTHLY: '1' } });
    try {
      llm.script({ text: 'First.', usage: { prompt_tokens: 5, completion_tokens: 1 } });
      await collect(h.sb.agent.handle(message('hi', { userId: 'carol' })));
      const events = await collect(h.sb.agent.handle(message('hi again', { userId: 'dave' })));
      expect(events.at(-1)).toMatchObject({
        type: 'error',
        code: 'budget_exhausted',
        message: expect.stringMatching(/monthly token budget\. It resets on 1 \w+ at 00:00 UTC/),
      });
    } finally {
      await h.close();
    }
  });

  it('refuses every user of a tenant over its monthly USD budget, with the reset date, before the model is called', async () => {
    const h = await startHarness({
      llm,
      tools: testTools,
      env: { OPENAI_MODEL: 'gpt-4o-mini', BUDGET_USD_PER_TENANT_MONTHLY: '0.001' },
    });
    try {
      const price = cataloguePrice('gpt-4o-mini');
      // A turn that costs more than $0.001 at the catalogue's price; then the tenant is over.
      const prompt = Math.ceil((0.002 * 1_000_000) / price.input);
      llm.script({ text: 'Costly.', usage: { prompt_tokens: prompt, completion_tokens: 10 } });
      expect(replyOf(await collect(h.sb.agent.handle(message('hi', { userId: 'erin' }))))?.text).toBe('Costly.');
      const refused = errorOf(await collect(h.sb.agent.handle(message('hi again', { userId: 'frank' }))));
      expect(refused).toMatchObject({
        code: 'budget_exhausted',
        message: expect.stringMatching(/monthly spending budget\. It resets on 1 \w+ at 00:00 UTC/),
      });
      expect(llm.remaining()).toBe(0);
    } finally {
      await h.close();
    }
  });

  it('tells the Slack user once, in the thread, when their budget resets', async () => {
    const rig = await startSlackRig({ mode: 'http', llm, env: { TOKEN_BUDGET_PER_USER_DAILY: '10' } });
    try {
      llm.script({ text: 'Spent.', usage: { prompt_tokens: 20, completion_tokens: 2 } });
      const first = mention('first');
      await postEvent(rig.eventsUrl, eventBody(first), sign());
      await rig.delivered(1);
      const second = mention('second');
      await postEvent(rig.eventsUrl, eventBody(second), sign());
      await rig.delivered(2);
      const notices = rig.slack.threadReplies('C0CHAN1', second.ts);
      expect(notices).toHaveLength(1);
      expect(notices[0]!.text).toMatch(/today’s token budget \(10 tokens\)\. It resets at 00:00 UTC/);
    } finally {
      await rig.close();
    }
  });
});

describe.skipIf(!TEST_DATABASE_URL)('npm run usage', () => {
  it('prints token use per tenant and UTC day, with totals, naming the database', async () => {
    const { port, db } = await openPostgresTestPort({ seed: false });
    try {
      const tenant = await port.defaultTenant();
      for (const [p, c, cached, reasoning, costUsd] of [
        [100, 10, 40, 3, 0.0125],
        [50, 5, 0, 0, null],
      ] as const) {
        await port.recordUsage({
          cachedPromptTokens: cached,
          reasoningTokens: reasoning,
          costUsd,
          tenantId: tenant.id,
          platform: 'slack',
          channelId: 'C1',
          threadId: 't1',
          userId: 'u1',
          model: 'gpt-test',
          promptTokens: p,
          completionTokens: c,
          toolCalls: 0,
        });
      }
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATABASE_URL: db.url,
        EMBEDDING_DIMENSIONS: '64',
        LOG_LEVEL: 'silent',
      };
      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/data/cli/usage.ts'], { env });
      const today = new Date().toISOString().slice(0, 10);
      expect(stdout).toContain(`Token use and cost in Postgres at ${new URL(db.url).host}`);
      // prompt, cached, completion, reasoning, total, turns, cost (one turn unpriced: `*`).
      expect(stdout).toMatch(new RegExp(`default\\s+${today}\\s+150\\s+40\\s+15\\s+3\\s+165\\s+2\\s+0\\.0125\\*`));
      expect(stdout).toMatch(/total\s+150\s+40\s+15\s+3\s+165\s+2\s+0\.0125\*/);
      expect(stdout).toContain('some turns have no cost');
      // The documented options, as `--from <day>` and as `--tenant=<slug>`: today's row, or nobody's.
      const cli = (...args: string[]) =>
        run(process.execPath, ['--import', 'tsx', 'src/data/cli/usage.ts', ...args], { env });
      const [forToday, nobody] = await Promise.all([
        cli('--from', today, '--to', today, '--tenant', 'default'),
        cli(`--from=${today}`, '--tenant=nobody'),
      ]);
      expect(forToday.stdout).toContain(`${today} to ${today} (UTC days)`);
      expect(forToday.stdout).toMatch(
        new RegExp(`default\\s+${today}\\s+150\\s+40\\s+15\\s+3\\s+165\\s+2\\s+0\\.0125\\*`),
      );
      expect(nobody.stdout).toContain('No turns recorded in this period.');
    } finally {
      await port.close();
      await db.drop();
    }
  }, 60_000);
});
