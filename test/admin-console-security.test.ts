/**
 * The operator console's guard, in process (the browser test drives the pages themselves):
 * off without ADMIN_TOKEN, the sign-in (a wrong token waits and gets no session; the form's own
 * CSRF token), the session cookie (HttpOnly, SameSite=Strict, Secure over HTTPS, signed and
 * expiring), CSRF on every form, the API token shown once, escaping, the CSP, and the trace link.
 */
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountConsole, type ConsoleDeps } from '../src/adapters/http/admin-console/index.js';
import { SESSION_MS } from '../src/adapters/http/admin-console/session.js';
import { createHttpApp } from '../src/adapters/http/app.js';
import { createWrongTokens } from '../src/security/wrong-tokens.js';
import type { AdminDataPort } from '../src/data/index.js';
import { importRows } from '../src/data/import/run.js';
import { listApiTokens } from '../src/data/api-tokens.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { peer } from './helpers/peer.js';

const TOKEN = 'security-test-admin-token-0123456789';
let h: Harness;
let clock = Date.now();

beforeAll(async () => {
  h = await startHarness();
  const data = h.sb.data as AdminDataPort;
  await importRows(data, 'tenants', (await data.defaultTenant()).id, [
    { slug: 'evil', name: '<script>alert(1)</script> Corp' },
  ]);
  const tenant = (await data.tenantBySlug('evil'))!;
  await data.recordUsage({
    tenantId: tenant.id,
    platform: 'discord',
    channelId: 'c',
    threadId: 't',
    userId: 'u',
    model: 'm',
    promptTokens: 10,
    completionTokens: 1,
    toolCalls: 0,
    turn: {
      outcome: 'answered',
      flags: [],
      tools: [],
      durationMs: 3,
      threadHash: 'th',
      userHash: 'uh',
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    },
  });
});
afterAll(() => h?.close());

function consoleApp(over: Partial<ConsoleDeps> = {}, config: Partial<ConsoleDeps['config']> = {}): Hono {
  const app = new Hono();
  mountConsole(app, {
    adminToken: TOKEN,
    data: h.sb.data,
    kv: h.sb.kv,
    inbox: h.sb.inbox,
    adapters: [],
    log: h.sb.log,
    config: { TRUST_PROXY: 0, ...config },
    signInDelayMs: 200,
    now: () => new Date(clock),
    ...over,
  });
  return app;
}

/** A browser's cookie jar, enough for one origin. */
class Jar {
  cookies = new Map<string, string>();
  take(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      if (/max-age=0/i.test(c) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): Record<string, string> {
    return { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  }
}

const csrfIn = (page: string) => /name="csrf"\s+value="([^"]+)"/.exec(page)?.[1] ?? '';
const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

async function signIn(
  app: Hono,
  jar = new Jar(),
  headers: Record<string, string> = {},
  token = TOKEN,
  env?: ReturnType<typeof peer>,
) {
  const page = await app.request('/admin/login', { headers: { ...jar.header(), ...headers } }, env);
  jar.take(page);
  const res = await app.request(
    '/admin/login',
    {
      ...form({ token, csrf: csrfIn(await page.text()) }),
      headers: { ...form({}).headers, ...jar.header(), ...headers },
    },
    env,
  );
  jar.take(res);
  return { jar, res };
}

describe('the operator console’s guard', () => {
  it('is off without ADMIN_TOKEN: 404 with a hint on every page, under the CSP', async () => {
    const app = consoleApp({ adminToken: undefined });
    for (const path of ['/admin', '/admin/login', '/admin/overview', '/admin/turns']) {
      const res = await app.request(path);
      expect(res.status, path).toBe(404);
      expect(await res.text()).toContain('set <code>ADMIN_TOKEN</code>');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    }
  });

  it('sends a stranger to the sign-in; a wrong token waits, is refused and opens no session', async () => {
    const app = consoleApp();
    const anon = await app.request('/admin/overview');
    expect(anon.status).toBe(303);
    expect(anon.headers.get('location')).toBe('/admin/login');

    const jar = new Jar();
    const page = await app.request('/admin/login');
    jar.take(page);
    const html = await page.text();
    expect(html).toContain('type="password"');
    const started = performance.now();
    const wrong = await app.request('/admin/login', {
      ...form({ token: 'guess', csrf: csrfIn(html) }),
      headers: { ...form({}).headers, ...jar.header() },
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(wrong.status).toBe(401);
    expect(wrong.headers.getSetCookie().some((c) => c.startsWith('sb_admin='))).toBe(false);
    // Wrong tokens wait one after another: three at once take three delays, not one.
    const many = performance.now();
    const tries = await Promise.all(
      ['a', 'b', 'c'].map((guess) =>
        app.request('/admin/login', {
          ...form({ token: guess, csrf: csrfIn(html) }),
          headers: { ...form({}).headers, ...jar.header() },
        }),
      ),
    );
    expect(tries.map((r) => r.status)).toEqual([401, 401, 401]);
    expect(performance.now() - many).toBeGreaterThanOrEqual(3 * 200 - 15);
    // The sign-in form's own CSRF token is required (another site cannot post a sign-in).
    const forged = await app.request('/admin/login', { ...form({ token: TOKEN }), headers: form({}).headers });
    expect(forged.status).toBe(403);
    expect(forged.headers.getSetCookie().some((c) => c.startsWith('sb_admin='))).toBe(false);
  });

  it('opens an HttpOnly, SameSite=Strict session (Secure over HTTPS through a trusted proxy) that expires', async () => {
    const { res, jar } = await signIn(consoleApp());
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/admin/overview');
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('sb_admin='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/admin/);
    expect(cookie).not.toMatch(/Secure/);
    expect((await consoleApp().request('/admin/overview', { headers: jar.header() })).status).toBe(200);

    const proxied = { 'x-forwarded-proto': 'https' };
    const behindProxy = await signIn(consoleApp({}, { TRUST_PROXY: 1 }), new Jar(), proxied);
    expect(behindProxy.res.headers.getSetCookie().find((c) => c.startsWith('sb_admin='))).toMatch(/Secure/);
    // Without TRUST_PROXY the header is anyone's: no claim of HTTPS is believed.
    const direct = await signIn(consoleApp(), new Jar(), proxied);
    expect(direct.res.headers.getSetCookie().find((c) => c.startsWith('sb_admin='))).not.toMatch(/Secure/);

    // A changed cookie is no session; nor is one past its expiry.
    const value = jar.cookies.get('sb_admin')!;
    const tampered = `${value[0] === 'A' ? 'B' : 'A'}${value.slice(1)}`;
    const bad = await consoleApp().request('/admin/overview', { headers: { cookie: `sb_admin=${tampered}` } });
    expect(bad.status).toBe(303);
    clock += SESSION_MS + 1_000;
    try {
      expect((await consoleApp().request('/admin/overview', { headers: jar.header() })).status).toBe(303);
    } finally {
      clock -= SESSION_MS + 1_000;
    }
    // A session of another ADMIN_TOKEN is no session here.
    expect(
      (await consoleApp({ adminToken: `${TOKEN}-rotated` }).request('/admin/overview', { headers: jar.header() }))
        .status,
    ).toBe(303);
  });

  it('refuses a form without the session’s CSRF token; shows a new API token once; revokes it', async () => {
    const app = consoleApp();
    const { jar } = await signIn(app);
    const headers = { ...form({}).headers, ...jar.header() };
    const without = await app.request('/admin/tokens', { ...form({ tenant: 'evil', label: 'x' }), headers });
    expect(without.status).toBe(403);
    const page = await (await app.request('/admin/tenants', { headers: jar.header() })).text();
    expect(page).not.toContain('x</td>');
    const csrf = csrfIn(page);

    const created = await app.request('/admin/tokens', { ...form({ tenant: 'evil', label: 'ci', csrf }), headers });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const secret = /data-new-token>(sbt_[A-Za-z0-9_-]+)</.exec(await created.text())?.[1];
    expect(secret).toBeDefined();
    const later = await (await app.request('/admin/tenants', { headers: jar.header() })).text();
    expect(later).not.toContain(secret!);
    expect(later).toContain(`${secret!.slice(0, 12)}…`);
    // Escaped: a tenant's name is text, never markup.
    expect(later).toContain('&lt;script&gt;alert(1)&lt;/script&gt; Corp');
    expect(later).not.toContain('<script>');

    const id = /name="id"\s+value="([^"]+)"/.exec(later)![1]!;
    const revoked = await app.request('/admin/tokens/revoke', { ...form({ id, csrf }), headers });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get('location')).toBe('/admin/tenants?notice=revoked');
    expect(await (await app.request('/admin/tenants', { headers: jar.header() })).text()).not.toContain(
      secret!.slice(0, 12),
    );

    // Sign-out is a form too, and ends the session.
    const out = await app.request('/admin/logout', { ...form({ csrf }), headers });
    expect(out.status).toBe(303);
    jar.take(out);
    expect((await app.request('/admin/overview', { headers: jar.header() })).status).toBe(303);
  });

  it('links a turn to its trace when TRACE_URL_TEMPLATE is set, and shows no trace column otherwise', async () => {
    const withTraces = consoleApp({}, { TRACE_URL_TEMPLATE: 'http://localhost:16686/trace/{trace_id}' });
    const { jar } = await signIn(withTraces);
    const page = await (await withTraces.request('/admin/turns?tenant=evil', { headers: jar.header() })).text();
    expect(page).toContain('href="http://localhost:16686/trace/4bf92f3577b34da6a3ce929d0e0e4736"');
    const plain = await (await consoleApp().request('/admin/turns?tenant=evil', { headers: jar.header() })).text();
    expect(plain).not.toContain('/trace/');
    expect(plain).toContain('data-turn=');
  });
});

describe('the overview’s period', () => {
  it('reads an impossible date (2026-13-01) as none: the last 30 days, not a failed page', async () => {
    const app = consoleApp();
    const { jar } = await signIn(app);
    const res = await app.request('/admin/overview?to=2026-13-01', { headers: jar.header() });
    expect(res.status).toBe(200);
    const today = new Date(clock).toISOString().slice(0, 10);
    expect(await res.text()).toContain(`id="to" name="to" type="date" value="${today}"`);
  });
});

describe('ending console sessions', () => {
  it('signing out ends the session: the same cookie replayed afterwards is sent to the sign-in and creates no API token', async () => {
    const app = consoleApp();
    const { jar } = await signIn(app);
    const stolen = jar.header();
    const page = await (await app.request('/admin/tenants', { headers: stolen })).text();
    const csrf = csrfIn(page);
    const out = await app.request('/admin/logout', { ...form({ csrf }), headers: { ...form({}).headers, ...stolen } });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/admin/login');

    // The old cookie, kept (as by someone who copied it): no page, and no token made with it.
    const replayed = await app.request('/admin/overview', { headers: stolen });
    expect(replayed.status).toBe(303);
    expect(replayed.headers.get('location')).toBe('/admin/login');
    expect((await consoleApp().request('/admin/tenants', { headers: stolen })).status).toBe(303);
    const before = (await listApiTokens(h.sb.data as AdminDataPort)).length;
    const create = await app.request('/admin/tokens', {
      ...form({ tenant: 'evil', label: 'replayed', csrf }),
      headers: { ...form({}).headers, ...stolen },
    });
    expect(create.status).toBe(401);
    expect(await create.text()).not.toMatch(/sbt_/);
    expect((await listApiTokens(h.sb.data as AdminDataPort)).length).toBe(before);
  });

  it('“Sign out everywhere” ends every session of the admin, and a new sign-in works after it', async () => {
    const app = consoleApp();
    const laptop = (await signIn(app)).jar;
    const phone = (await signIn(app)).jar;
    const page = await (await app.request('/admin/overview', { headers: phone.header() })).text();
    expect(page).toContain('action="/admin/logout/everywhere"');
    expect(page).toContain('Sign out everywhere');
    expect((await app.request('/admin/overview', { headers: laptop.header() })).status).toBe(200);

    const out = await app.request('/admin/logout/everywhere', {
      ...form({ csrf: csrfIn(page) }),
      headers: { ...form({}).headers, ...phone.header() },
    });
    expect(out.status).toBe(303);
    for (const jar of [laptop, phone]) {
      const res = await app.request('/admin/overview', { headers: jar.header() });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/admin/login');
    }
    const again = await signIn(app);
    expect((await app.request('/admin/overview', { headers: again.jar.header() })).status).toBe(200);
  });
});

describe('wrong admin tokens, console and admin API together', () => {
  it('after 5 wrong tokens from one address, that address is refused (429, Retry-After) even with the right token; another address is not', async () => {
    // One count for both doors, as serve() wires them (no pause here: the count is what is tested).
    const wrongTokens = createWrongTokens({ log: h.sb.log, pauseMs: 0 });
    const app = createHttpApp({ agent: h.sb.agent, log: h.sb.log, data: h.sb.data, adminToken: TOKEN, wrongTokens });
    mountConsole(app, {
      adminToken: TOKEN,
      data: h.sb.data,
      kv: h.sb.kv,
      inbox: h.sb.inbox,
      adapters: [],
      log: h.sb.log,
      config: { TRUST_PROXY: 0 },
      wrongTokens,
    });
    const guesser = peer('203.0.113.7');
    const api = (token: string, env = guesser) =>
      app.request('/tts_admin/tenants', { headers: { authorization: `Bearer ${token}` } }, env);

    for (const guess of ['a', 'b', 'c'])
      expect((await signIn(app, new Jar(), {}, guess, guesser)).res.status).toBe(401);
    expect((await api('guess-4')).status).toBe(401);
    expect((await api('guess-5')).status).toBe(401);

    const sixth = await api('guess-6');
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await sixth.json()).toMatchObject({ status: 'error', error: { code: 'rate_limited' } });
    // Even the right token: a guesser cannot tell it from a wrong one while refused.
    expect((await api(TOKEN)).status).toBe(429);
    const console = await signIn(app, new Jar(), {}, TOKEN, guesser);
    expect(console.res.status).toBe(429);
    expect(console.res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(console.res.headers.getSetCookie().some((c) => c.startsWith('sb_admin='))).toBe(false);
    expect(await console.res.text()).toContain('Too many wrong tokens from your address');

    // Another address is not held back by this one's guesses.
    expect((await api(TOKEN, peer('198.51.100.2'))).status).toBe(200);
    expect((await signIn(app, new Jar(), {}, TOKEN, peer('198.51.100.2'))).res.status).toBe(303);
  });
});
