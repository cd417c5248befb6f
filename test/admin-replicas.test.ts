/**
 * The console's sessions and the ADMIN_TOKEN guessing limit across replicas: two apps as
 * `npm start` runs them (`serve()`), on one Redis. A sign-out on one is a sign-out on the other;
 * "sign out everywhere" ends sessions opened on either; wrong tokens sent to both count as one.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type Serving } from '../src/wiring/serve.js';
import { startFakeOpenAI, type FakeOpenAI } from './fakes/openai-server.js';
import { captureLogs, serveConfig } from './helpers/harness.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
if (!REDIS_URL) console.warn('[admin-replicas.test] TEST_REDIS_URL is not set: the console replica tests are SKIPPED');

describe.skipIf(!REDIS_URL)('the console and the admin API on two replicas sharing Redis', () => {
  // This run's own: sessions are kept per ADMIN_TOKEN, wrong tokens per address.
  const token = `replica-admin-token-${randomUUID()}`;
  const address = `2001:db8::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
  let llm: FakeOpenAI;
  let a: Serving;
  let b: Serving;

  beforeAll(async () => {
    llm = await startFakeOpenAI();
    const env = { REDIS_URL: REDIS_URL!, ADMIN_TOKEN: token, TRUST_PROXY: '1' };
    [a, b] = await Promise.all([
      serve(serveConfig(llm.url, env), captureLogs().log),
      serve(serveConfig(llm.url, env), captureLogs().log),
    ]);
    // Two whole apps (an embedded database each): slow on a busy machine.
  }, 180_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await llm?.close();
  }, 60_000);

  /** A browser on `from`: its cookies, through either replica. */
  function browser(from = address) {
    const cookies = new Map<string, string>();
    const request = async (base: string, path: string, init: RequestInit = {}) => {
      const res = await fetch(`${base}${path}`, {
        ...init,
        redirect: 'manual',
        headers: {
          'x-forwarded-for': from,
          cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
          ...(init.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
      });
      for (const c of res.headers.getSetCookie()) {
        const [name, value] = c.split(';')[0]!.split('=') as [string, string];
        if (/max-age=0/i.test(c) || value === '') cookies.delete(name);
        else cookies.set(name, value);
      }
      return res;
    };
    const csrf = async (base: string, path: string) =>
      /name="csrf"\s+value="([^"]+)"/.exec(await (await request(base, path)).text())?.[1] ?? '';
    return {
      cookies,
      request,
      async signIn(base: string, given = token) {
        const form = new URLSearchParams({ token: given, csrf: await csrf(base, '/admin/login') });
        return request(base, '/admin/login', { method: 'POST', body: form.toString() });
      },
      async post(base: string, path: string) {
        const form = new URLSearchParams({ csrf: await csrf(base, '/admin/health') });
        return request(base, path, { method: 'POST', body: form.toString() });
      },
    };
  }

  it('a session signed out on one replica is refused on the other, when its cookie is replayed', async () => {
    const operator = browser();
    expect((await operator.signIn(a.url)).status).toBe(303);
    expect((await operator.request(b.url, '/admin/overview')).status).toBe(200);
    const kept = new Map(operator.cookies);

    expect((await operator.post(a.url, '/admin/logout')).status).toBe(303);
    operator.cookies.clear();
    for (const [k, v] of kept) operator.cookies.set(k, v);
    for (const base of [b.url, a.url]) {
      const replayed = await operator.request(base, '/admin/overview');
      expect(replayed.status).toBe(303);
      expect(replayed.headers.get('location')).toBe('/admin/login');
    }
  });

  it('“Sign out everywhere” on one replica ends the sessions opened on both', async () => {
    const laptop = browser();
    const phone = browser();
    expect((await laptop.signIn(a.url)).status).toBe(303);
    expect((await phone.signIn(b.url)).status).toBe(303);
    expect((await laptop.request(b.url, '/admin/overview')).status).toBe(200);

    expect((await phone.post(b.url, '/admin/logout/everywhere')).status).toBe(303);
    expect((await laptop.request(a.url, '/admin/overview')).status).toBe(303);
    expect((await laptop.request(b.url, '/admin/overview')).status).toBe(303);
    expect((await phone.request(a.url, '/admin/overview')).status).toBe(303);
  });

  it('wrong tokens sent to both replicas count as one: past 5 the address is refused on both (429, Retry-After)', async () => {
    const guesser = `2001:db8::1:${randomBytes(2).toString('hex')}`;
    const api = (base: string, bearer: string, from = guesser) =>
      fetch(`${base}/tts_admin/tenants`, { headers: { authorization: `Bearer ${bearer}`, 'x-forwarded-for': from } });
    expect((await browser(guesser).signIn(a.url, 'guess-1')).status).toBe(401);
    expect((await api(b.url, 'guess-2')).status).toBe(401);
    expect((await api(a.url, 'guess-3')).status).toBe(401);
    expect((await browser(guesser).signIn(b.url, 'guess-4')).status).toBe(401);
    expect((await api(b.url, 'guess-5')).status).toBe(401);

    for (const base of [a.url, b.url]) {
      const refused = await api(base, token);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await browser(guesser).signIn(base)).status).toBe(429);
    }
    // Another address still gets in.
    expect((await api(a.url, token, `2001:db8::2:${randomBytes(2).toString('hex')}`)).status).toBe(200);
  });
});
