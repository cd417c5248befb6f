/**
 * OAuth 2.1 for a tenant's MCP server (issue 44, item 2), through the whole app as `npm start`
 * runs it (`serve()`: the HTTP API and the operator console), against a loopback authorization
 * server and the MCP server it protects (test/helpers/oauth-mcp-server.ts). The operator presses
 * Connect in the console (HTTP requests, no browser): discovery, dynamic client registration,
 * PKCE; the callback finishes it; tokens are sealed at rest; a turn calls the server's tool with
 * the grant; the access token is refreshed before it expires; a revoked grant shows on the
 * Health page and in one warn line, and the turn still answers, without the server's tools. An
 * authorization server without registration works with a client id set in the console.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminDataPort } from '../../src/data/index.js';
import { serve, type Serving } from '../../src/wiring/serve.js';
import { tenantsCommand } from '../../src/data/cli/tenants.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { captureLogs, sentToolNames, serveConfig, type LogCapture } from '../helpers/harness.js';
import { startOAuthMcpServer, type OAuthMcpServer } from '../helpers/oauth-mcp-server.js';

const KEY = 'cd'.repeat(32);
const ADMIN = 'admin-token-for-the-oauth-test-0123456789';
const API = 'api-token-for-the-oauth-test-0123456789';
const HOUR = 3_600_000;

let as: OAuthMcpServer;
let bare: OAuthMcpServer;
let llm: FakeOpenAI;
let app: Serving;
let logs: LogCapture;
let tenantSlug: string;
/** The MCP layer's clock: moved forward to bring an access token near its expiry. */
let clock = Date.now();

/** A browser's cookie jar for the app's one origin. */
const jar = new Map<string, string>();
const take = (res: Response) => {
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(';');
    const at = pair!.indexOf('=');
    const [name, value] = [pair!.slice(0, at), pair!.slice(at + 1)];
    if (/max-age=0/i.test(c) || value === '') jar.delete(name);
    else jar.set(name, value);
  }
};
const cookie = () => ({ cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') });
const csrfIn = (html: string) => /name="csrf"\s+value="([^"]+)"/.exec(html)?.[1] ?? '';
const get = async (path: string) => {
  const res = await fetch(`${app.url}${path}`, { headers: cookie(), redirect: 'manual' });
  take(res);
  return res;
};
const post = async (path: string, fields: Record<string, string>) => {
  const res = await fetch(`${app.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...cookie() },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  take(res);
  return res;
};
const csrf = async () => csrfIn(await (await get('/admin/health')).text());
const unescape = (s: string) => s.replaceAll('&amp;', '&');

/** Presses Connect on a server's row and follows the link to the authorization server; returns its redirect back. */
async function connect(server: string): Promise<{ page: Response; callback?: string }> {
  const page = await post('/admin/mcp/connect', { csrf: await csrf(), tenant: tenantSlug, server });
  const html = await page.clone().text();
  const link = /id="continue" href="([^"]+)"/.exec(html)?.[1];
  if (!link) return { page };
  const authorized = await fetch(unescape(link), { redirect: 'manual' });
  return { page, callback: authorized.headers.get('location') ?? undefined };
}

const chat = async (message: string) => {
  const res = await fetch(`${app.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${API}` },
    body: JSON.stringify({ message, threadId: `oauth-${Math.random()}` }),
  });
  return { status: res.status, body: (await res.json()) as { response?: string } };
};
const grantRow = async (name: string) =>
  (
    await (app.sb.data as AdminDataPort).transport.sql!.query(
      `select o.status, o.state_sealed, o.pending_sealed from public.mcp_oauth o
         join public.mcp_servers s on s.id = o.server_id where s.name = $1`,
      [name],
    )
  )[0] as { status: string; state_sealed: string | null; pending_sealed: string | null } | undefined;
const warnLines = (pattern: RegExp) => logs.lines.filter((l) => l.level === 40 && pattern.test(String(l.msg)));

beforeAll(async () => {
  as = await startOAuthMcpServer();
  bare = await startOAuthMcpServer({ registration: false });
  llm = await startFakeOpenAI();
  const captured = captureLogs('info');
  logs = captured.logs;
  app = await serve(
    serveConfig(llm.url, {
      ADMIN_TOKEN: ADMIN,
      API_TOKEN: API,
      MCP_ALLOW_LOOPBACK_HTTP: 'true',
      MCP_SECRET_KEY: KEY,
      LOG_LEVEL: 'info',
    }),
    captured.log,
    { mcp: { now: () => clock } },
  );
  const data = app.sb.data as AdminDataPort;
  const tenant = await data.defaultTenant();
  tenantSlug = tenant.slug ?? 'default';
  await app.sb.mcp!.store.add(tenant.id, { name: 'crm', url: as.url, authKind: 'oauth' });
  await app.sb.mcp!.store.add(tenant.id, { name: 'legacy', url: bare.url, authKind: 'oauth' });
  // The operator signs in to the console.
  const login = await get('/admin/login');
  const signedIn = await post('/admin/login', { token: ADMIN, csrf: csrfIn(await login.text()) });
  expect(signedIn.status).toBe(303);
}, 60_000);
afterAll(async () => {
  await app?.stop();
  await llm?.close();
  await Promise.all([as?.close(), bare?.close()]);
});

describe('an MCP server behind OAuth', () => {
  it('before Connect, its tools are left out and the turn answers; Health says it is not connected', async () => {
    llm.script({ text: 'Hello without the CRM.' });
    const asked = await chat('hello');
    expect(asked).toMatchObject({ status: 200, body: { response: 'Hello without the CRM.' } });
    expect(sentToolNames(llm.lastRequest('/chat/completions')!.body)).not.toContain('crm__lookup');
    const health = await (await get('/admin/health')).text();
    expect(health).toMatch(/data-mcp-grant="[^"]+\/crm"[\s\S]*?not connected/);
    // The server's row on the Tenants page has its Connect button.
    const tenants = await (await get('/admin/tenants')).text();
    expect(tenants).toMatch(new RegExp(`data-mcp-connect="${tenantSlug}/crm"[^>]*>\\s*Connect\\s*<`));
  });

  it('Connect discovers, registers a client and starts PKCE; the callback finishes it; the grant is sealed', async () => {
    const { page, callback } = await connect('crm');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Continue to 127.0.0.1');
    // Dynamic client registration, for the console's callback.
    expect(as.registered).toEqual([
      { client_id: expect.stringMatching(/^client_/), redirect_uris: [`${app.url}/admin/mcp/oauth/callback`] },
    ]);
    const asked = as.authorizations.at(-1)!;
    expect(asked).toMatchObject({
      response_type: 'code',
      client_id: as.registered[0]!.client_id,
      code_challenge_method: 'S256',
      resource: as.url,
    });
    expect(asked.code_challenge).toMatch(/^[\w-]{43}$/);
    expect(callback).toMatch(new RegExp(`^${app.url}/admin/mcp/oauth/callback\\?code=`));

    // Without the browser's flow cookie (another browser), the callback refuses it.
    const stolen = await fetch(callback!, { redirect: 'manual' });
    expect(stolen.status).toBe(400);
    expect(await stolen.text()).toContain('started in another browser or session');

    const path = new URL(callback!).pathname + new URL(callback!).search;
    const finished = await get(path);
    expect(finished.status).toBe(200);
    expect(await finished.text()).toContain('Connected crm');
    expect(as.tokenRequests.at(-1)).toEqual({
      grant_type: 'authorization_code',
      client_id: as.registered[0]!.client_id,
    });

    const row = await grantRow('crm');
    expect(row?.status).toBe('connected');
    expect(row?.state_sealed).toMatch(/^v1:/);
    expect(row?.state_sealed).not.toContain(as.issued.at(-1)!);
    expect(row?.state_sealed).not.toMatch(/at_|rt_|client_/);
    expect(row?.pending_sealed).toBeNull();

    // A used callback link does nothing the second time.
    const replay = await get(path);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('unknown or was already used');
  });

  it('a turn calls the server’s tool with the grant; the access token is refreshed before it expires', async () => {
    // 40 s left of the hour the token was issued for: under the minute's margin, still valid.
    clock += HOUR - 40_000;
    const consentToken = as.issued.at(-1)!;
    llm.script({ toolCalls: [{ name: 'crm__lookup', arguments: { id: '42' } }] }, { text: 'Acme renews soon.' });
    const asked = await chat('when does account 42 renew?');
    expect(asked).toMatchObject({ status: 200, body: { response: 'Acme renews soon.' } });
    expect(as.calls).toBe(1);
    expect(as.tokenRequests.filter((r) => r.grant_type === 'refresh_token')).toHaveLength(1);
    const refreshed = as.issued.at(-1)!;
    expect(refreshed).not.toBe(consentToken);
    // Every request the MCP server saw carried the refreshed token, never the one about to expire.
    expect(new Set(as.acceptedTokens)).toEqual(new Set([refreshed]));
    expect(as.acceptedTokens).not.toContain(consentToken);
  });

  it('a revoked grant: Health shows it, one warn line, and turns still answer without the server’s tools', async () => {
    as.revokeAll();
    clock += HOUR - 40_000;
    for (const text of ['first after the revocation', 'second after the revocation']) {
      llm.script({ text: `Answered: ${text}.` });
      const asked = await chat(text);
      expect(asked).toMatchObject({ status: 200, body: { response: `Answered: ${text}.` } });
      expect(sentToolNames(llm.lastRequest('/chat/completions')!.body)).not.toContain('crm__lookup');
    }
    expect(as.calls).toBe(1);
    expect((await grantRow('crm'))?.status).toBe('revoked');
    const lines = warnLines(/OAuth grant is revoked/);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ mcpServer: 'crm', code: 'oauth_revoked' });
    expect(JSON.stringify(lines[0])).not.toMatch(/at_|rt_/);
    // No other warn line about the server (the turn did not fail, nothing else went wrong).
    expect(warnLines(/MCP server/).filter((l) => l !== lines[0])).toEqual([]);
    const health = await (await get('/admin/health')).text();
    expect(health).toMatch(/data-mcp-grant="[^"]+\/crm"[\s\S]*?revoked: connect again/);
  });

  it('an authorization server without registration: Connect says so; with a client id set, it connects', async () => {
    const refused = await connect('legacy');
    expect(refused.page.status).toBe(400);
    expect(await refused.page.text()).toContain('does not offer client registration: set a client id');

    const saved = await post('/admin/mcp/client-id', {
      csrf: await csrf(),
      tenant: tenantSlug,
      server: 'legacy',
      client_id: 'configured-client',
    });
    expect(saved.status).toBe(303);
    const { callback } = await connect('legacy');
    expect(bare.authorizations.at(-1)).toMatchObject({ client_id: 'configured-client', code_challenge_method: 'S256' });
    const finished = await get(new URL(callback!).pathname + new URL(callback!).search);
    expect(await finished.text()).toContain('Connected legacy');
    expect((await grantRow('legacy'))?.status).toBe('connected');
  });

  it('a grant revoked while its token is still good: the call fails to the model, the turn answers, one warn line', async () => {
    bare.revokeAll();
    llm.script(
      { toolCalls: [{ name: 'legacy__lookup', arguments: { id: '7' } }] },
      { text: 'The old CRM is not available.' },
    );
    const asked = await chat('look up account 7 in the old CRM');
    expect(asked).toMatchObject({ status: 200, body: { response: 'The old CRM is not available.' } });
    expect(bare.calls).toBe(0);
    expect((await grantRow('legacy'))?.status).toBe('revoked');
    const lines = logs.lines.filter((l) => l.level === 40 && l.mcpServer === 'legacy');
    expect(lines.map((l) => l.msg)).toEqual([expect.stringMatching(/OAuth grant is revoked/)]);
    // The next turn does not offer them at all.
    llm.script({ text: 'Without the old CRM.' });
    await chat('and now?');
    expect(sentToolNames(llm.lastRequest('/chat/completions')!.body)).not.toContain('legacy__lookup');
  });

  it('the CLI and the admin API add an OAuth server, say its grant and set its client id', async () => {
    const lines: string[] = [];
    const cli = (...argv: string[]) =>
      tenantsCommand(app.sb.data as AdminDataPort, argv, (l) => lines.push(l), {
        config: app.sb.config,
        log: app.sb.log,
      });
    expect(await cli('mcp', 'add', tenantSlug, 'billing', as.url, '--oauth')).toBe(0);
    expect(lines.join('\n')).toContain('Added billing');
    lines.length = 0;
    expect(await cli('mcp', 'oauth', tenantSlug, 'crm')).toBe(0);
    expect(lines[0]).toMatch(
      /^crm: revoked \(the authorization server refused to refresh it \(invalid_grant\)\); client: registered automatically$/,
    );
    lines.length = 0;
    expect(await cli('mcp', 'oauth', tenantSlug, 'billing', '--client-id', 'billing-client')).toBe(0);
    expect(lines[0]).toContain('will sign in as client billing-client');
    const res = await fetch(`${app.url}/tts_admin/tenants/${tenantSlug}/mcp/billing/oauth`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: null }),
    });
    expect(await res.json()).toEqual({
      status: 'ok',
      server: 'billing',
      oauth: { status: 'not_connected', clientId: null },
    });
  });

  it('Connect and the client id are console forms: without the session’s CSRF token they are refused', async () => {
    const forged = await post('/admin/mcp/connect', { tenant: tenantSlug, server: 'crm' });
    expect(forged.status).toBe(403);
    const anonymous = await fetch(`${app.url}/admin/mcp/connect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ tenant: tenantSlug, server: 'crm' }).toString(),
      redirect: 'manual',
    });
    expect(anonymous.status).toBe(401);
  });
});
