/**
 * The operator console (/admin) in a real browser: Debian's Chromium driven by playwright-core,
 * against the whole app as `npm start` runs it (`serve()`: the HTTP API, the Slack adapter over
 * HTTP with OAuth installs, the inbox, the embedded database), the fake OpenAI as the model and
 * the fake Slack Web API as Slack. Signs in (a wrong token refused first), reads the overview's
 * "N turns" and charts after N turns, the turns table, approves a pending Slack install and sees
 * that workspace's next event answered; every request the page makes stays on 127.0.0.1.
 *
 * Screenshots of each page go to $CONSOLE_SCREENSHOTS (docs/admin when regenerating the docs'
 * pictures), else to a temporary directory.
 */
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminDataPort } from '../src/data/index.js';
import { importRows } from '../src/data/import/run.js';
import { serve, type Serving } from '../src/wiring/serve.js';
import { startFakeOpenAI, type FakeOpenAI } from './fakes/openai-server.js';
import { postEvent } from './fakes/slack/signing.js';
import { startFakeSlack, type FakeSlack } from './fakes/slack/web-api.js';
import { captureLogs, serveConfig } from './helpers/harness.js';
import { testTools } from './helpers/test-tools.js';
import { GLOBEX, workspaceMention } from './adapters/slack/setup.js';

const CHROMIUM = '/usr/bin/chromium';
const ADMIN_TOKEN = 'console-test-admin-token-0123456789';
const SIGNING_SECRET = 'console-test-signing-secret';
const N = 3;

/** A signed-in-Slack mention from the Globex workspace, as the Events API sends it. */
const globexMention = (text: string) =>
  workspaceMention(GLOBEX, text, { user: 'U0GLOBEXUSER', channel: 'C0GLOBEX' }).body;

if (!existsSync(CHROMIUM)) console.warn(`${CHROMIUM} is missing: the operator console's browser test is SKIPPED`);

describe.skipIf(!existsSync(CHROMIUM))('the operator console in a browser', () => {
  let llm: FakeOpenAI;
  let slack: FakeSlack;
  let app: Serving;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const requested: string[] = [];
  const shots = process.env.CONSOLE_SCREENSHOTS
    ? resolve(process.env.CONSOLE_SCREENSHOTS)
    : mkdtempSync(join(tmpdir(), 'console-shots-'));
  mkdirSync(shots, { recursive: true });

  beforeAll(async () => {
    [llm, slack] = await Promise.all([startFakeOpenAI(), startFakeSlack()]);
    // Captured, not printed (a failing run's lines are in `captured.logs`).
    const captured = captureLogs('info');
    app = await serve(
      serveConfig(llm.url, {
        ADMIN_TOKEN,
        TENANT_MODE: 'strict',
        SLACK_API_URL: slack.url,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_CLIENT_ID: '1111.2222',
        SLACK_CLIENT_SECRET: 'fake-client-secret',
        SLACK_STATE_SECRET: 'a-long-random-state-secret',
        SLACK_TOKEN_ENCRYPTION_KEY: 'cd'.repeat(32),
        TURN_LOG_HASH_KEY: 'console-test-hash-key-0123456789',
        MODEL_PRICES: JSON.stringify({ 'gpt-test': { input: 1, output: 2 } }),
        OPENAI_MODEL: 'gpt-test',
      }),
      captured.log,
      { tools: testTools },
    );
    const data = app.sb.data as AdminDataPort;
    await importRows(data, 'tenants', (await data.defaultTenant()).id, [{ slug: 'globex', name: 'Globex Corp' }]);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.on('request', (r) => requested.push(r.url()));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    await slack?.close();
    await llm?.close();
  });

  /** Everything the bot posted or streamed into a channel, as one string. */
  const postedTo = (channel: string) =>
    JSON.stringify(
      slack.calls.filter((c) => c.args.channel === channel && c.method.startsWith('chat.')).map((c) => c.args),
    );

  it(`signs in (a wrong token refused), and the overview counts ${N} turns with their charts`, async () => {
    // N turns through the HTTP API (this machine, no API_TOKEN): one with a tool call.
    llm.script(
      {
        toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
        usage: { prompt_tokens: 1_000, completion_tokens: 50 },
      },
      { text: 'Rainy.', usage: { prompt_tokens: 1_200, completion_tokens: 30 } },
    );
    for (let i = 1; i < N; i++)
      llm.script({ text: `Answer ${i}.`, usage: { prompt_tokens: 500, completion_tokens: 20 } });
    for (let i = 0; i < N; i++) {
      const res = await fetch(`${app.url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: i === 0 ? 'weather in Oslo?' : `question ${i}` }),
      });
      expect(res.status).toBe(200);
    }

    const first = await page.goto(`${app.url}/admin`);
    expect(page.url()).toBe(`${app.url}/admin/login`);
    expect(first?.headers()['content-security-policy']).toContain("default-src 'none'");
    // Keyboard: the token field has the focus; typing and Enter signs in (below).
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('token');
    await page.screenshot({ path: join(shots, 'signin.png') });

    await page.fill('#token', 'not-the-token');
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.press('#token', 'Enter'),
    ]);
    expect(refused.status()).toBe(401);
    await expect.poll(() => page.textContent('[role=alert]')).toContain('That is not the admin token.');
    expect((await context.cookies()).map((c) => c.name)).not.toContain('sb_admin');

    await page.fill('#token', ADMIN_TOKEN);
    await Promise.all([page.waitForURL(`${app.url}/admin/overview`), page.press('#token', 'Enter')]);
    const cookie = (await context.cookies()).find((c) => c.name === 'sb_admin');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/admin' });
    expect(await page.textContent('.headline strong')).toBe(`${N} turns`);
    expect(await page.locator('svg.chart').count()).toBe(2);
    expect(await page.locator('svg.chart rect').count()).toBeGreaterThan(0);
    const row = page.locator('tbody tr', { has: page.locator('th', { hasText: 'default' }) }).first();
    expect(await row.locator('td').first().textContent()).toBe(String(N));
    await page.screenshot({ path: join(shots, 'overview.png'), fullPage: true });
    // The first Tab on a page lands on the skip link.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement && document.activeElement.textContent')).toBe('Skip to content');
  });

  it('lists the turns newest first, with tools and their outcomes, and filters them', async () => {
    await page.click('nav >> text=Turns');
    await page.waitForURL(`${app.url}/admin/turns`);
    const rows = page.locator('tr[data-turn]');
    expect(await rows.count()).toBe(N);
    // The oldest (last row) is the one with the tool call.
    expect(await rows.last().textContent()).toContain('get_weather ✓');
    expect(await rows.first().locator('.badge').first().textContent()).toBe('answered');
    const body = await page.textContent('main');
    expect(body).not.toContain('weather in Oslo');
    await page.screenshot({ path: join(shots, 'turns.png'), fullPage: true });
    await page.selectOption('#f-outcome', 'failed');
    await Promise.all([page.waitForURL(/outcome=failed/), page.click('text=Filter')]);
    expect(await page.locator('tr[data-turn]').count()).toBe(0);
  });

  it('approves a pending Slack install, and the next event from that workspace is answered', async () => {
    // Globex installs the app (OAuth against the fake Slack); TENANT_MODE=strict keeps it waiting.
    const installPage = await fetch(`${app.url}/slack/install`);
    const cookie = installPage.headers.get('set-cookie')?.split(';')[0] ?? '';
    const link = new URL(/href="([^"]+)"/.exec(await installPage.text())![1]!.replaceAll('&amp;', '&'));
    const code = slack.approveInstall(GLOBEX);
    const done = await fetch(
      `${app.url}/slack/oauth_redirect?code=${encodeURIComponent(code)}&state=${encodeURIComponent(link.searchParams.get('state')!)}`,
      { headers: { cookie }, redirect: 'manual' },
    );
    expect(done.status).toBe(200);

    // Before approval a mention from Globex is told the workspace is not set up (no model call).
    await postEvent(`${app.url}/slack/events`, globexMention('anyone there?'), { secret: SIGNING_SECRET });
    await slack.waitFor(() => postedTo('C0GLOBEX').includes('not set up'), 'the not-set-up notice');
    expect(postedTo('C0GLOBEX')).not.toContain('Hello Globex.');

    await page.click('nav >> text=Tenants');
    await page.waitForURL(`${app.url}/admin/tenants`);
    const request = page.locator('tr[data-request="T0GLOBEX"]');
    expect(await request.count()).toBe(1);
    await request.locator('select').selectOption('globex');
    await page.screenshot({ path: join(shots, 'tenants.png'), fullPage: true });
    await Promise.all([page.waitForURL(/notice=approved/), request.locator('button', { hasText: 'Approve' }).click()]);
    expect(await page.textContent('.notice')).toContain('approved');
    expect(await page.locator('tr[data-request]').count()).toBe(0);

    // A signed mention from Globex is now answered, with Globex's own token (the refusal its
    // earlier mention got is not remembered: the approval cleared this replica's tenant cache).
    llm.script({ text: 'Hello Globex.', usage: { prompt_tokens: 300, completion_tokens: 10 } });
    const res = await postEvent(`${app.url}/slack/events`, globexMention('hello from globex'), {
      secret: SIGNING_SECRET,
    });
    expect(res.status).toBe(200);
    await slack.waitFor(() => postedTo('C0GLOBEX').includes('Hello Globex.'), 'the Globex answer');

    // The console shows it as globex's turn.
    await page.goto(`${app.url}/admin/turns?tenant=globex`);
    expect(await page.locator('tr[data-turn]').count()).toBe(1);
    expect(await page.locator('tr[data-turn] td').nth(2).textContent()).toBe('slack');
  });

  it('shows health, a phone-width overview, and no request of the page left loopback', async () => {
    await page.goto(`${app.url}/admin/health`);
    expect(await page.textContent('.headline')).toContain('Ready');
    expect(await page.textContent('main')).toContain('slack');
    expect(await page.getAttribute('[data-inbox-depth]', 'data-inbox-depth')).toBe('0');
    await page.screenshot({ path: join(shots, 'health.png'), fullPage: true });

    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    phone.on('request', (r) => requested.push(r.url()));
    await phone.addCookies(await context.cookies());
    const small = await phone.newPage();
    await small.goto(`${app.url}/admin/overview`);
    expect(await small.textContent('.headline strong')).toBe(`${N + 1} turns`);
    // Nothing wider than the screen but the tables' own scrolling boxes.
    const overflow = await small.evaluate('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await small.screenshot({ path: join(shots, 'overview-phone.png'), fullPage: true });
    await phone.close();

    // Sign out: the session is gone, the pages send to the sign-in again.
    await page.goto(`${app.url}/admin/overview`);
    await Promise.all([page.waitForURL(`${app.url}/admin/login`), page.click('text=Sign out')]);
    await page.goto(`${app.url}/admin/turns`);
    expect(page.url()).toBe(`${app.url}/admin/login`);

    expect(requested.length).toBeGreaterThan(10);
    const strangers = requested.filter((u) => new URL(u).hostname !== '127.0.0.1');
    expect(strangers).toEqual([]);
  });
});
