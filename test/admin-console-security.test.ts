/**
 * The operator console's guard, in process (the browser test drives the pages themselves):
 * off without ADMIN_TOKEN, the sign-in (a wrong token waits and gets no session; the form's own
 * CSRF token), the session cookie (HttpOnly, SameSite=Strict, Secure over HTTPS, signed and
 * expiring), CSRF on every form, the API token shown once, escaping, the CSP, and the trace link.
 */
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountConsole, type ConsoleDeps } from '../src/adapters/http/console/index.js';
import { SESSION_MS } from '../src/adapters/http/console/session.js';
import type { AdminDataPort } from '../src/data/index.js';
import { importRows } from '../src/data/import/run.js';
import { startHarness, type Harness } from './helpers/harness.js';

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

async function signIn(app: Hono, jar = new Jar(), headers: Record<string, string> = {}) {
  const page = await app.request('/admin/login', { headers: { ...jar.header(), ...headers } });
  jar.take(page);
  const res = await app.request('/admin/login', {
    ...form({ token: TOKEN, csrf: csrfIn(await page.text()) }),
    headers: { ...form({}).headers, ...jar.header(), ...headers },
  });
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
    const tampered = value.replace(/^\d+/, (n) => String(Number(n) + 86_400_000));
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
