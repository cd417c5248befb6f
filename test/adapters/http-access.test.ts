/**
 * Closed by default (issue 27): the app as `npm start` runs it (`serve()`), bound to 0.0.0.0,
 * called by a client on another host (a network namespace joined to this one by a veth pair)
 * and by loopback clients, with and without API_TOKEN, METRICS_TOKEN and TRUST_PROXY.
 */
import { execFile, spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { request } from 'node:http';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../src/adapters/http/app.js';
import { clientAddress, createRefusal, decideAccess, isLoopback } from '../../src/adapters/http/access.js';
import { mountOps } from '../../src/adapters/http/ops.js';
import { startHttpServer } from '../../src/adapters/http/server.js';
import { parseConfig } from '../../src/config/index.js';
import { serve, type Serving } from '../../src/wiring/serve.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { captureLogs, serveConfig, type LogCapture } from '../helpers/harness.js';
import { peer } from '../helpers/peer.js';
import { testTools } from '../helpers/test-tools.js';
import { Hono } from 'hono';

const run = promisify(execFile);
const API = 'api-token-from-afar';
const METRICS = 'metrics-token-for-scrapers';
const ADMIN = 'admin-token-for-operators';

/** `ip netns` needs root and iproute2; without them the cross-host test cannot run here. */
const netnsProblem = (() => {
  if (process.getuid?.() !== 0) return 'not running as root';
  const probe = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0)
    return `\`ip netns\` is unavailable (${probe.error?.message ?? probe.stderr.trim()})`;
  return undefined;
})();
if (netnsProblem)
  console.warn(`[http-access.test] ${netnsProblem}: the test from another host (network namespace) is SKIPPED`);

let llm: FakeOpenAI;
beforeAll(async () => {
  llm = await startFakeOpenAI();
});
afterAll(() => llm.close());

const chatInit = (headers: Record<string, string> = {}, body: Record<string, unknown> = { message: 'hi' }) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/**
 * One request over node:http, which (unlike fetch) sends the Host, Origin and Sec-Fetch-Site we
 * give it, as a browser on this machine would: its status, body and the JSON of it if any.
 */
function raw(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string; json: () => unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, json: () => JSON.parse(body) as unknown }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** A veth pair: this host at .1, a namespace at .2 of a random 10.200.x.y/30; removed afterwards. */
async function startOtherHost(): Promise<{ hostIp: string; ns: string; close(): Promise<void> }> {
  const tag = `${process.pid % 100_000}${randomInt(100)}`;
  const ns = `sb-access-${tag}`;
  const [a, b] = [`sbh${tag}`, `sbn${tag}`];
  const base = `10.200.${randomInt(256)}.${randomInt(64) * 4}`;
  const octets = base.split('.').map(Number);
  const at = (n: number) => [...octets.slice(0, 3), octets[3]! + n].join('.');
  const sh = (...args: string[]) => run('ip', args);
  await sh('netns', 'add', ns);
  try {
    await sh('link', 'add', a, 'type', 'veth', 'peer', 'name', b);
    await sh('link', 'set', b, 'netns', ns);
    await sh('addr', 'add', `${at(1)}/30`, 'dev', a);
    await sh('link', 'set', a, 'up');
    await sh('netns', 'exec', ns, 'ip', 'addr', 'add', `${at(2)}/30`, 'dev', b);
    await sh('netns', 'exec', ns, 'ip', 'link', 'set', b, 'up');
  } catch (err) {
    await sh('netns', 'del', ns).catch(() => undefined);
    await sh('link', 'del', a).catch(() => undefined);
    throw err;
  }
  return {
    hostIp: at(1),
    ns,
    async close() {
      await sh('netns', 'del', ns); // takes its end of the pair, and so the pair, with it
      await sh('link', 'del', a).catch(() => undefined);
    },
  };
}

/** One request made by a node process inside the namespace: its status and body. */
async function fromOtherHost(
  ns: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  const script = `fetch(process.argv[1], JSON.parse(process.argv[2])).then(async (r) => console.log(JSON.stringify({ status: r.status, body: await r.text() })), (e) => { console.error(String(e.cause ?? e)); process.exit(1); })`;
  const { stdout } = await run('ip', ['netns', 'exec', ns, process.execPath, '-e', script, url, JSON.stringify(init)]);
  return JSON.parse(stdout) as { status: number; body: string };
}

describe('with no API_TOKEN, bound to 0.0.0.0', () => {
  let app: Serving;
  let logs: LogCapture;
  let port: string;
  beforeAll(async () => {
    const capture = captureLogs();
    logs = capture.logs;
    app = await serve(serveConfig(llm.url, { HOST: '0.0.0.0', LOG_LEVEL: 'info' }), capture.log, {
      tools: testTools,
    });
    port = new URL(app.url).port;
  }, 60_000);
  afterAll(() => app.stop());

  it('says in one start-up line what is open to whom', () => {
    const lines = logs.lines.filter((l) => String(l.msg).startsWith('Switchboard listening'));
    expect(lines.map((l) => l.msg)).toEqual([
      `Switchboard listening on 0.0.0.0:${port}: /api and /mcp loopback only (no API_TOKEN) or a tenant token; /api/usage a tenant token only (no API_TOKEN); ` +
        '/metrics loopback only (no METRICS_TOKEN); admin off (no ADMIN_TOKEN); /healthz /readyz open; X-Forwarded-For ignored',
    ]);
  });

  it.skipIf(Boolean(netnsProblem))(
    'refuses a client on another host: 401 for /api/chat, /api/usage and /metrics, even claiming 127.0.0.1 in X-Forwarded-For; /healthz and /readyz answer',
    async () => {
      const other = await startOtherHost();
      try {
        const base = `http://${other.hostIp}:${port}`;
        const unauthorized = { error: { code: 'unauthorized', message: expect.any(String) } };
        const chat = await fromOtherHost(other.ns, `${base}/api/chat`, chatInit());
        expect(chat.status).toBe(401);
        expect(JSON.parse(chat.body)).toEqual(unauthorized);
        expect(JSON.parse(chat.body).error.message).toMatch(/API_TOKEN/);
        const forged = await fromOtherHost(
          other.ns,
          `${base}/api/chat`,
          chatInit({ 'x-forwarded-for': '127.0.0.1', 'x-real-ip': '127.0.0.1' }),
        );
        expect(forged.status).toBe(401);
        const usage = await fromOtherHost(other.ns, `${base}/api/usage`);
        expect(usage.status).toBe(401);
        expect(JSON.parse(usage.body)).toEqual(unauthorized);
        const metrics = await fromOtherHost(other.ns, `${base}/metrics`);
        expect(metrics.status).toBe(401);
        expect(JSON.parse(metrics.body)).toEqual(unauthorized);
        expect(metrics.body).not.toContain('switchboard_');
        const healthz = await fromOtherHost(other.ns, `${base}/healthz`);
        expect(healthz.status).toBe(200);
        expect(JSON.parse(healthz.body)).toMatchObject({ ok: true });
        expect((await fromOtherHost(other.ns, `${base}/readyz`)).status).toBe(200);
        // Nothing of it reached the model.
        expect(llm.requestsTo('/chat/completions')).toHaveLength(0);
      } finally {
        await other.close();
      }
    },
    30_000,
  );

  it('answers a loopback client on /api/chat and /metrics, but /api/usage still needs API_TOKEN', async () => {
    llm.script({ text: 'Hello, neighbour.' });
    const chat = await fetch(`${app.url}/api/chat`, chatInit());
    expect(chat.status).toBe(200);
    expect(await chat.json()).toMatchObject({ response: 'Hello, neighbour.' });
    const metrics = await fetch(`${app.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('switchboard_turns_total');
    // A proxy on this machine forwarding a stranger (TRUST_PROXY off) is not a local client.
    const forwarded = await fetch(`${app.url}/api/chat`, chatInit({ 'x-forwarded-for': '127.0.0.1' }));
    expect(forwarded.status).toBe(401);
    expect(await forwarded.json()).toEqual({
      error: { code: 'unauthorized', message: expect.stringContaining('set TRUST_PROXY') },
    });
    const usage = await fetch(`${app.url}/api/usage`);
    expect(usage.status).toBe(401);
    expect(await usage.json()).toEqual({
      error: { code: 'unauthorized', message: expect.stringContaining('npm run usage') },
    });
  });

  describe('a web page in a browser on this machine (no token: loopback is ambient authority)', () => {
    const forbidden = { error: { code: 'forbidden', message: expect.any(String) } };
    const chats = () => llm.requestsTo('/chat/completions').length;
    const chatBody = JSON.stringify({ message: 'hi' });

    it('a DNS-rebinding page (Host: its own name) is refused on /api/chat and /metrics, and reads nothing', async () => {
      const before = chats();
      const host = `rebind.evil.example:${port}`;
      const chat = await raw(`${app.url}/api/chat`, {
        method: 'POST',
        headers: {
          host,
          'content-type': 'application/json',
          origin: `http://${host}`,
          'sec-fetch-site': 'same-origin',
        },
        body: chatBody,
      });
      expect(chat.status).toBe(403);
      expect(chat.json()).toEqual(forbidden);
      expect(chat.body).toMatch(/Host header does not name this machine.*API_TOKEN/);
      const metrics = await raw(`${app.url}/metrics`, { headers: { host } });
      expect(metrics.status).toBe(403);
      expect(metrics.body).not.toContain('switchboard_');
      expect(metrics.body).toMatch(/METRICS_TOKEN/);
      // A name that starts like an address is still a name.
      expect((await raw(`${app.url}/metrics`, { headers: { host: `127.0.0.1.evil.example:${port}` } })).status).toBe(
        403,
      );
      expect(chats()).toBe(before);
    });

    it('another site’s no-cors text/plain POST is refused, and no turn runs', async () => {
      const before = chats();
      const res = await raw(`${app.url}/api/chat`, {
        method: 'POST',
        headers: {
          host: `127.0.0.1:${port}`,
          origin: 'https://evil.example',
          'content-type': 'text/plain;charset=UTF-8',
          'sec-fetch-site': 'cross-site',
          'sec-fetch-mode': 'no-cors',
        },
        body: chatBody,
      });
      expect(res.status).toBe(403);
      expect(res.json()).toEqual(forbidden);
      expect(res.body).toMatch(/does not answer web pages/);
      // An older browser that sends Origin but no Sec-Fetch-*: the same.
      const oldBrowser = await raw(`${app.url}/api/chat`, {
        method: 'POST',
        headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
        body: chatBody,
      });
      expect(oldBrowser.status).toBe(403);
      expect(chats()).toBe(before);
    });

    it('Sec-Fetch-Site cross-site or same-site (a page on another localhost port) is refused; none (typed URL) is not', async () => {
      const crossSite = await raw(`${app.url}/metrics`, { headers: { 'sec-fetch-site': 'cross-site' } });
      expect(crossSite.status).toBe(403);
      expect(crossSite.json()).toEqual(forbidden);
      const sameSite = await raw(`${app.url}/metrics`, {
        headers: { 'sec-fetch-site': 'same-site', origin: 'http://localhost:5173' },
      });
      expect(sameSite.status).toBe(403);
      const sameSiteNoOrigin = await raw(`${app.url}/metrics`, { headers: { 'sec-fetch-site': 'same-site' } });
      expect(sameSiteNoOrigin.status).toBe(403);
      const typed = await raw(`${app.url}/metrics`, {
        headers: { host: `localhost:${port}`, 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' },
      });
      expect(typed.status).toBe(200);
      expect(typed.body).toContain('switchboard_turns_total');
    });

    it('a program on this machine still gets in: curl-like (Host 127.0.0.1:port), Host localhost:port, [::1], our own origin', async () => {
      llm.script({ text: 'Curl says hi.' }, { text: 'Localhost says hi.' }, { text: 'Same origin says hi.' });
      const curl = await raw(`${app.url}/api/chat`, {
        method: 'POST',
        headers: { host: `127.0.0.1:${port}`, 'content-type': 'application/json', accept: '*/*' },
        body: chatBody,
      });
      expect(curl.status).toBe(200);
      expect(curl.json()).toMatchObject({ response: 'Curl says hi.' });
      const localhost = await raw(`${app.url}/api/chat`, {
        method: 'POST',
        headers: { host: `localhost:${port}`, 'content-type': 'application/json; charset=utf-8' },
        body: chatBody,
      });
      expect(localhost.status).toBe(200);
      expect(localhost.json()).toMatchObject({ response: 'Localhost says hi.' });
      const own = await raw(`${app.url}/api/chat`, {
        method: 'POST',
        headers: {
          host: `localhost:${port}`,
          origin: `http://localhost:${port}`,
          'sec-fetch-site': 'same-origin',
          'content-type': 'application/json',
        },
        body: chatBody,
      });
      expect(own.status).toBe(200);
      expect(own.json()).toMatchObject({ response: 'Same origin says hi.' });
      for (const host of ['localhost', `[::1]:${port}`, `127.1.2.3:${port}`, `LOCALHOST:${port}`])
        expect((await raw(`${app.url}/metrics`, { headers: { host } })).status, host).toBe(200);
    });

    it('a loopback curl without Content-Type: application/json gets 415, and no turn runs', async () => {
      const before = chats();
      const form = await raw(`${app.url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: chatBody,
      });
      expect(form.status).toBe(415);
      expect(form.json()).toEqual({
        error: { code: 'unsupported_media_type', message: expect.stringContaining('Content-Type: application/json') },
      });
      expect(chats()).toBe(before);
    });

    it('logs a refused page at warn, at most once a minute per reason, counting the rest', async () => {
      const warned = () =>
        logs.lines.filter((l) => l.level === 40 && String(l.msg).startsWith('http request from a web page refused'));
      const start = warned().length;
      for (let i = 0; i < 5; i++)
        expect((await raw(`${app.url}/metrics`, { headers: { origin: 'https://flood.example' } })).status).toBe(403);
      const lines = warned().slice(start);
      // Earlier tests may have opened this minute's window for "origin": at most one line, never five.
      expect(lines.length).toBeLessThanOrEqual(1);
      expect(warned()[0]).toMatchObject({ code: 'forbidden', reason: expect.any(String), path: expect.any(String) });
    });

    it('the next line after a quiet minute says how many were refused in it', async () => {
      const capture = captureLogs();
      let now = 0;
      const refuse = createRefusal(capture.log, () => now);
      const probe = new Hono().get('/', (c) => {
        const decision = decideAccess(c, {
          token: undefined,
          tokenName: 'API_TOKEN',
          loopbackWithoutToken: true,
          trustedHops: 0,
        });
        return decision.ok ? c.text('ok') : refuse(c, decision);
      });
      const page = { headers: { origin: 'https://evil.example' } };
      for (let i = 0; i < 4; i++) expect((await probe.request('/', page, peer())).status).toBe(403);
      now += 60_000;
      expect((await probe.request('/', page, peer())).status).toBe(403);
      const lines = capture.logs.lines.filter((l) => l.code === 'forbidden');
      expect(lines.map((l) => [l.level, l.reason, l.refusedSinceLastLine])).toEqual([
        [40, 'origin', 0],
        [40, 'origin', 3],
      ]);
    });
  });

  it('with API_TOKEN, the bearer works from the other host (a member, its userId kept) and a wrong one does not; with METRICS_TOKEN, /metrics needs it from everyone', async () => {
    const tokenApp = createHttpApp({
      agent: app.sb.agent,
      log: app.sb.log,
      apiToken: API,
      data: app.sb.data,
      adminToken: ADMIN,
    });
    mountOps(tokenApp, { ...app.sb, adapters: [], log: app.sb.log, metricsToken: METRICS });
    const server = await startHttpServer(tokenApp, 0, '0.0.0.0');
    try {
      const tokenPort = new URL(server.url).port;
      // Loopback is no exception once the tokens are set.
      expect((await fetch(`${server.url}/api/chat`, chatInit())).status).toBe(401);
      expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
      expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${API}` } })).status).toBe(401);
      const scraped = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } });
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain('switchboard_turns_total');
      // A token is no ambient authority (a browser never adds it by itself): Host, Origin and
      // Sec-Fetch-Site do not matter to a token caller.
      const fromAPage = await raw(`${server.url}/metrics`, {
        headers: {
          authorization: `Bearer ${METRICS}`,
          host: 'bot.example.com',
          origin: 'https://dashboard.example',
          'sec-fetch-site': 'cross-site',
        },
      });
      expect(fromAPage.status).toBe(200);
      // JSON bodies only, token or not.
      const before = llm.requestsTo('/chat/completions').length;
      const plain = await raw(`${server.url}/api/chat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API}`, 'content-type': 'text/plain' },
        body: JSON.stringify({ message: 'hi' }),
      });
      expect(plain.status).toBe(415);
      expect(plain.json()).toEqual({
        error: { code: 'unsupported_media_type', message: expect.stringContaining('"text/plain"') },
      });
      expect(llm.requestsTo('/chat/completions')).toHaveLength(before);
      // The admin API too, after its token check (a stranger still gets 401, not a hint).
      const adminPlain = (authorization?: string) =>
        raw(`${server.url}/tts_admin/tokens`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain', ...(authorization ? { authorization } : {}) },
          body: JSON.stringify({ tenant: 'default' }),
        });
      expect((await adminPlain()).status).toBe(401);
      const admin = await adminPlain(`Bearer ${ADMIN}`);
      expect(admin.status).toBe(415);
      expect(admin.json()).toEqual({
        status: 'error',
        error: { code: 'unsupported_media_type', message: expect.stringContaining('application/json') },
      });
      expect((await fetch(`${server.url}/api/usage`, { headers: { authorization: `Bearer ${API}` } })).status).toBe(
        200,
      );
      if (netnsProblem) return;
      const other = await startOtherHost();
      try {
        const base = `http://${other.hostIp}:${tokenPort}`;
        llm.script({ text: 'Hello from afar.' });
        const ok = await fromOtherHost(
          other.ns,
          `${base}/api/chat`,
          chatInit({ authorization: `Bearer ${API}` }, { message: 'hi', userId: 'backend-user-7' }),
        );
        expect(ok.status).toBe(200);
        expect(JSON.parse(ok.body)).toMatchObject({ response: 'Hello from afar.' });
        const wrong = await fromOtherHost(other.ns, `${base}/api/chat`, chatInit({ authorization: 'Bearer nope' }));
        expect(wrong.status).toBe(401);
        const scrapedFromAfar = await fromOtherHost(other.ns, `${base}/metrics`, {
          headers: { authorization: `Bearer ${METRICS}` },
        });
        expect(scrapedFromAfar.status).toBe(200);
        const usage = await fromOtherHost(other.ns, `${base}/api/usage?userId=backend-user-7`, {
          headers: { authorization: `Bearer ${API}` },
        });
        expect(JSON.parse(usage.body)).toMatchObject({ turns: 1 });
      } finally {
        await other.close();
      }
    } finally {
      await server.close();
    }
  }, 30_000);
});

describe('TRUST_PROXY', () => {
  let app: Serving;
  beforeAll(async () => {
    app = await serve(serveConfig(llm.url, { TRUST_PROXY: 'true', USER_MESSAGES_PER_MINUTE: '1' }), captureLogs().log, {
      tools: testTools,
    });
  }, 60_000);
  afterAll(() => app.stop());

  it('takes the client from the last X-Forwarded-For entry: a remote client behind the proxy is refused, a local one answered, and limits key on that address', async () => {
    const via = (xff: string, body?: Record<string, unknown>) =>
      fetch(`${app.url}/api/chat`, chatInit({ 'x-forwarded-for': xff }, body));
    // The client wrote "127.0.0.1"; our proxy appended the address it saw.
    expect((await via('127.0.0.1, 203.0.113.9')).status).toBe(401);
    expect((await via('::ffff:198.51.100.4')).status).toBe(401);
    expect((await via('not-an-address')).status).toBe(401);
    llm.script({ text: 'Local via the proxy.' });
    expect((await via('203.0.113.9, 127.0.0.5', { message: 'hi', userId: 'a' })).status).toBe(200);
    // One message a minute per client address: another userId from the same address is refused…
    const again = await via('127.0.0.5', { message: 'hi', userId: 'b' });
    expect(again.status).toBe(429);
    expect(await again.json()).toMatchObject({ error: { code: 'rate_limited' } });
    // …another address is not.
    llm.script({ text: 'Another local client.' });
    expect((await via('127.0.0.6', { message: 'hi', userId: 'a' })).status).toBe(200);
    // No header: the request did not come through the proxy, so its client is unknown (closed).
    expect((await fetch(`${app.url}/api/chat`, chatInit())).status).toBe(401);
  });

  it('counts hops: with 2, the client is the entry before the last; fewer hops than proxies is unknown', async () => {
    const probe = new Hono();
    let seen: (string | undefined)[] = [];
    probe.get('/', (c) => {
      seen = [0, 1, 2, 3].map((hops) => clientAddress(c, hops));
      return c.text('ok');
    });
    await probe.request('/', { headers: { 'x-forwarded-for': '10.0.0.1, 10.0.0.2, [::1]:443' } }, peer('192.0.2.1'));
    expect(seen).toEqual(['192.0.2.1', '::1', '10.0.0.2', '10.0.0.1']);
    await probe.request('/', { headers: { 'x-forwarded-for': '127.0.0.1' } }, peer('192.0.2.1'));
    expect(seen).toEqual(['192.0.2.1', '127.0.0.1', undefined, undefined]);
  });

  it.each([
    ['', 0],
    ['false', 0],
    ['true', 1],
    ['2', 2],
  ])('TRUST_PROXY=%j is %d proxies', (value, hops) => {
    expect(parseConfig({ TRUST_PROXY: value }).TRUST_PROXY).toBe(hops);
  });

  it('refuses a TRUST_PROXY it cannot read, at start', () => {
    expect(() => parseConfig({ TRUST_PROXY: 'loopback' })).toThrow(/TRUST_PROXY: is false, true/);
  });
});

describe('loopback', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['::1', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:10.0.0.1', false],
    ['10.0.0.1', false],
    ['128.0.0.1', false],
    ['::2', false],
    ['localhost', false],
    ['', false],
  ])('%j is loopback: %s', (address, expected) => {
    expect(isLoopback(address)).toBe(expected);
  });

  it('an in-process request with no socket is a stranger', async () => {
    const app = createHttpApp({ agent: undefined as never, log: captureLogs().log });
    expect((await app.request('/api/chat', chatInit())).status).toBe(401);
  });
});
