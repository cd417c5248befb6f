/**
 * Feedback on answers (issue 47) in the operator console, in a real browser (Debian's Chromium
 * driven by playwright-core, as test/admin-console.test.ts): the whole app as `npm start` runs it,
 * answers through the HTTP API and votes through `POST /api/feedback` from three people; the
 * overview shows satisfaction per tenant, per model and per tool family (votes and the share of
 * 👍) and the thumbs-down list with the comment, the tools, the model, the cost and a trace link;
 * a thumbs-down's "Draft" downloads an eval case built from the turn and its comment.
 */
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyTool } from '../../src/contract/tool.js';
import type { AdminDataPort } from '../../src/data/index.js';
import { serve, type Serving } from '../../src/wiring/serve.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { captureLogs, serveConfig } from '../helpers/harness.js';
import { weatherTool } from '../helpers/test-tools.js';
import { sqlRows } from './sql.js';

const CHROMIUM = '/usr/bin/chromium';
const ADMIN_TOKEN = 'feedback-console-admin-token-0123456789';
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

if (!existsSync(CHROMIUM)) console.warn(`${CHROMIUM} is missing: the feedback console browser test is SKIPPED`);

describe.skipIf(!existsSync(CHROMIUM))('feedback in the operator console', () => {
  let llm: FakeOpenAI;
  let app: Serving;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    llm = await startFakeOpenAI();
    const captured = captureLogs('info');
    // The weather tool tagged as a family, as createToolSet tags the product tools.
    const tools: AnyTool[] = [{ ...weatherTool, family: 'web' } as AnyTool];
    app = await serve(
      serveConfig(llm.url, {
        ADMIN_TOKEN,
        FEEDBACK: 'on',
        OPENAI_MODEL: 'gpt-test',
        MODEL_PRICES: JSON.stringify({ 'gpt-test': { input: 1, output: 2 } }),
        TRACE_URL_TEMPLATE: 'https://traces.example.test/trace/{trace_id}',
        TURN_LOG_HASH_KEY: 'feedback-console-hash-key-0123456789',
      }),
      captured.log,
      { tools },
    );
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    await llm?.close();
  });

  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${app.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('shows satisfaction per tenant, model and tool family, and the thumbs-down list with a draft eval case', async () => {
    // Three answers: one that checked the weather (the `web` family), two without a tool.
    llm.script(
      {
        toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
        usage: { prompt_tokens: 900, completion_tokens: 40 },
      },
      { text: 'Sunny in Oslo.', usage: { prompt_tokens: 1_100, completion_tokens: 30 } },
      { text: 'We open at nine.', usage: { prompt_tokens: 400, completion_tokens: 10 } },
      { text: 'Yes, we deliver.', usage: { prompt_tokens: 400, completion_tokens: 10 } },
    );
    const ids: string[] = [];
    for (const message of ['weather in Oslo?', 'when do you open?', 'do you deliver?']) {
      const res = await post('/api/chat', { message });
      expect(res.status).toBe(200);
      ids.push(res.body.turnId as string);
    }
    const [weather, hours, delivery] = ids as [string, string, string];
    // The loopback caller is one person; each vote names the answer (a second vote on one answer replaces the first).
    expect(
      (await post('/api/feedback', { turnId: weather, value: 'down', comment: 'It was raining in Oslo.' })).status,
    ).toBe(200);
    expect((await post('/api/feedback', { turnId: hours, value: 'up' })).status).toBe(200);
    expect((await post('/api/feedback', { turnId: delivery, value: 'up' })).status).toBe(200);
    expect((await post('/api/feedback', { turnId: delivery, value: 'down' })).status).toBe(200);
    // The weather answer's trace, as the turn record keeps it when tracing is on.
    const data = app.sb.data as AdminDataPort;
    await data.transport.sql!.query(`update public.turn_log set trace_id = $1 where turn_id = $2`, [TRACE, weather]);

    await page.goto(`${app.url}/admin/login`);
    await page.fill('#token', ADMIN_TOKEN);
    await Promise.all([page.waitForURL(`${app.url}/admin/overview`), page.press('#token', 'Enter')]);

    const headline = page.locator('#satisfaction + .headline');
    expect(await headline.getAttribute('data-votes-up')).toBe('1');
    expect(await headline.getAttribute('data-votes-down')).toBe('2');
    expect(await headline.locator('strong').textContent()).toBe('33%');

    const cells = async (table: string, name: string) =>
      page
        .locator(`table.${table} tbody tr`, { has: page.locator('th', { hasText: name }) })
        .locator('td')
        .allTextContents();
    // 👍, 👎, votes, satisfied.
    expect(await cells('by-tenant', 'default')).toEqual(['1', '2', '3', '33%']);
    expect(await cells('by-model', 'gpt-test')).toEqual(['1', '2', '3', '33%']);
    expect(await cells('by-family', 'web')).toEqual(['0', '1', '1', '0%']);
    expect(await cells('by-family', 'no tool')).toEqual(['1', '1', '2', '50%']);

    const rows = page.locator('table.thumbs-down tr[data-feedback-turn]');
    expect(await rows.count()).toBe(2);
    // Newest vote first: the delivery answer's 👎 (no comment), then the weather answer's.
    expect(await rows.first().getAttribute('data-feedback-turn')).toBe(delivery);
    const row = page.locator(`tr[data-feedback-turn="${weather}"]`);
    expect(await row.locator('q.comment').textContent()).toBe('It was raining in Oslo.');
    expect(await row.textContent()).toContain('get_weather ✓');
    expect(await row.textContent()).toContain('gpt-test');
    expect(await row.textContent()).toMatch(/\$0\.00\d+/);
    expect(await row.locator('a', { hasText: 'trace' }).getAttribute('href')).toBe(
      `https://traces.example.test/trace/${TRACE}`,
    );
    expect(await page.locator(`tr[data-feedback-turn="${delivery}"]`).textContent()).toContain('no comment');

    const shots = process.env.CONSOLE_SCREENSHOTS
      ? resolve(process.env.CONSOLE_SCREENSHOTS)
      : mkdtempSync(join(tmpdir(), 'console-shots-'));
    mkdirSync(shots, { recursive: true });
    await page.locator('#satisfaction').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, 'feedback.png'), fullPage: true });
    console.log(`feedback screenshot: ${join(shots, 'feedback.png')}`);

    // The draft eval case: the tools that ran, the comment as the expectation, a placeholder question.
    const href = await row.locator('a', { hasText: 'Draft' }).getAttribute('href');
    const draft = await context.request.get(`${app.url}${href}`);
    expect(draft.status()).toBe(200);
    expect(draft.headers()['content-disposition']).toContain(`feedback-${weather.slice(0, 8)}.ts`);
    const text = await draft.text();
    expect(text).toContain('It was raining in Oslo.');
    expect(text).toContain('must: ["get_weather"]');
    expect(text).toContain(`turn ${weather}`);
    // Without a session, nothing.
    expect((await fetch(`${app.url}${href}`, { redirect: 'manual' })).status).not.toBe(200);

    // The votes' rows hold no platform id of the voter.
    const stored = await sqlRows<{ user_hash: string }>(data, `select user_hash from public.turn_feedback`);
    expect(stored.every((r) => /^[0-9a-f]{24}$/.test(r.user_hash))).toBe(true);
  });
});
