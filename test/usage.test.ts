/**
 * The token ledger and budgets: one row per turn with the usage the LLM reported, totals over
 * HTTP (`GET /api/usage`) and in `npm run usage`, and budgets refusing a turn with the reset
 * time while other users go on; on PGlite and on the real Postgres.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/adapters/http/app.js';
import { isAdminPort, type AdminDataPort } from '../src/data/index.js';
import { startFakeOpenAI, type FakeOpenAI } from './fakes/openai-server.js';
import { openPgliteTestPort, openPostgresTestPort, TEST_DATABASE_URL, type TestDatabase } from './helpers/db.js';
import { collect, message, startHarness, type Harness } from './helpers/harness.js';
import { testTools } from './helpers/test-tools.js';
import { eventBody, mention, postEvent, sign, startSlackRig } from './adapters/slack/setup.js';
import { peer } from './helpers/peer.js';

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

    const app = createHttpApp({ agent: h.sb.agent, log: h.sb.log, data: h.sb.data, apiToken: 'usage-token' });
    const auth = { headers: { authorization: 'Bearer usage-token' } };
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
      // The first row goes alone (nothing was in flight); the rest queued behind it and went together.
      expect(calls.length).toBeLessThanOrEqual(3);
      expect(calls[0]).toBe('record_turn_usage');
      expect(calls.slice(1).every((fn) => fn === 'record_turn_usages')).toBe(true);
      expect(
        await port.usageTotals({
          tenant: tenant.id,
          from: new Date(Date.now() - 60_000),
          to: new Date(Date.now() + 60_000),
          threadId: thread,
        }),
      ).toEqual({ promptTokens: 2_000, completionTokens: 19_900, turns: 200 });

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
      for (const [p, c] of [
        [100, 10],
        [50, 5],
      ] as const) {
        await port.recordUsage({
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
      expect(stdout).toContain(`Token use in Postgres at ${new URL(db.url).host}`);
      expect(stdout).toMatch(new RegExp(`default\\s+${today}\\s+150\\s+15\\s+165\\s+2`));
      expect(stdout).toMatch(/total\s+150\s+15\s+165\s+2/);
    } finally {
      await port.close();
      await db.drop();
    }
  }, 60_000);
});
