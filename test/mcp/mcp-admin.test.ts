/**
 * Issue 44 for operators: a tenant's MCP servers on the admin API (add, list without header values,
 * tools listed now, enable, remove) and on the console (the Tenants page's MCP servers section and
 * its Add form; the Health page's MCP servers with a failing one marked).
 */
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountConsole } from '../../src/adapters/http/admin-console/index.js';
import { createHttpApp } from '../../src/adapters/http/app.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { startMcpServer, text, type TestMcpServer } from '../helpers/mcp-servers.js';
import { peer } from '../helpers/peer.js';

const ADMIN = 'mcp-admin-test-token-0123456789abcdef';
let h: Harness;
let app: Hono;
let crm: TestMcpServer;
let wiki: TestMcpServer;

beforeAll(async () => {
  crm = await startMcpServer({
    requireHeaders: { 'x-api-key': 'secret-key-1' },
    tools: [
      { name: 'lookup', annotations: { readOnlyHint: true }, handler: () => text('found') },
      { name: 'update', handler: () => text('updated') },
    ],
  });
  wiki = await startMcpServer({ tools: [{ name: 'search', annotations: { readOnlyHint: true } }] });
  h = await startHarness({
    env: { MCP_ALLOW_LOOPBACK_HTTP: 'true', MCP_SECRET_KEY: 'cd'.repeat(32), ADMIN_TOKEN: ADMIN },
  });
  app = createHttpApp({ agent: h.sb.agent, log: h.sb.log, data: h.sb.data, adminToken: ADMIN, mcp: h.sb.mcp });
  mountConsole(app, {
    adminToken: ADMIN,
    data: h.sb.data,
    kv: h.sb.kv,
    inbox: h.sb.inbox,
    adapters: [],
    log: h.sb.log,
    config: { TRUST_PROXY: 0 },
    signInDelayMs: 10,
    ...(h.sb.mcp ? { mcp: h.sb.mcp } : {}),
  });
}, 60_000);
afterAll(async () => {
  await h?.close();
  await Promise.all([crm?.close(), wiki?.close()]);
});

const api = (path: string, init: RequestInit = {}) =>
  app.request(
    `/tts_admin${path}`,
    {
      ...init,
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
    },
    peer(),
  );
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers read field by field in assertions
const json = async (res: Response) => (await res.json()) as Record<string, any>;

describe('MCP servers on the admin API', () => {
  it('adds, lists (no header values), lists tools, enables, removes', async () => {
    const bad = await api('/tenants/default/mcp', {
      method: 'POST',
      body: JSON.stringify({ name: 'crm', url: crm.url }),
    });
    expect(bad.status).toBe(502);
    expect((await json(bad)).error.message).toContain('could not list');

    const added = await api('/tenants/default/mcp', {
      method: 'POST',
      body: JSON.stringify({ name: 'crm', url: crm.url, headers: { 'X-Api-Key': 'secret-key-1' } }),
    });
    expect(added.status).toBe(201);
    const body = await json(added);
    expect(body.transport).toBe('streamable-http');
    expect(body.tools).toEqual([
      expect.objectContaining({ name: 'crm__lookup', readOnly: true, enabled: true }),
      expect.objectContaining({ name: 'crm__update', readOnly: false, enabled: false }),
    ]);
    expect(JSON.stringify(body)).not.toContain('secret-key-1');

    const listed = await json(await api('/tenants/default/mcp'));
    expect(listed.servers).toEqual([expect.objectContaining({ name: 'crm', headerNames: ['x-api-key'] })]);
    expect(JSON.stringify(listed)).not.toContain('secret-key-1');

    const enabled = await json(
      await api('/tenants/default/mcp/crm/tools', { method: 'PUT', body: JSON.stringify({ enable: ['update'] }) }),
    );
    expect(enabled.tools.find((t: { name: string }) => t.name === 'crm__update').enabled).toBe(true);
    const tools = await json(await api('/tenants/default/mcp/crm/tools'));
    expect(tools.tools.every((t: { enabled: boolean }) => t.enabled)).toBe(true);

    expect((await api('/tenants/nobody/mcp')).status).toBe(404);
    expect((await api('/tenants/default/mcp/nope', { method: 'DELETE' })).status).toBe(404);
    expect((await api('/tenants/default/mcp/crm', { method: 'DELETE' })).status).toBe(200);
    expect((await json(await api('/tenants/default/mcp'))).servers).toEqual([]);
  });
});

describe('MCP servers on the console', () => {
  const csrfIn = (page: string) => /name="csrf"\s+value="([^"]+)"/.exec(page)?.[1] ?? '';
  let cookie = '';
  const take = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      if (pair && !/max-age=0/i.test(c)) cookie = pair;
    }
  };
  const get = async (path: string) => {
    const res = await app.request(path, { headers: { cookie } }, peer());
    return res.text();
  };
  const post = (path: string, fields: Record<string, string>) =>
    app.request(
      path,
      {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      },
      peer(),
    );

  beforeAll(async () => {
    const page = await app.request('/admin/login', {}, peer());
    take(page);
    const res = await app.request(
      '/admin/login',
      {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: ADMIN, csrf: csrfIn(await page.text()) }).toString(),
      },
      peer(),
    );
    take(res);
  }, 60_000);

  it('the Tenants page adds a server and lists it; the Health page shows a failing one', async () => {
    const page = await get('/admin/tenants');
    expect(page).toContain('MCP servers');
    const added = await post('/admin/mcp/add', {
      csrf: csrfIn(page),
      tenant: 'default',
      name: 'wiki',
      url: wiki.url,
      headers: '',
    });
    expect(added.status).toBe(303);
    expect(added.headers.get('location')).toContain('notice=mcp-added');
    const after = await get('/admin/tenants');
    expect(after).toContain('data-mcp-server="default/wiki"');

    const refused = await post('/admin/mcp/add', {
      csrf: csrfIn(after),
      tenant: 'default',
      name: 'x',
      url: 'http://example.com/mcp',
      headers: '',
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('http is allowed only for loopback');

    // The hub lists it (as a turn would), then the server goes away.
    const tenant = await h.sb.data.defaultTenant();
    await h.sb.mcp!.hub.listings(tenant.id);
    await wiki.close();
    const server = (await h.sb.mcp!.store.list(tenant.id)).find((s) => s.name === 'wiki')!;
    await h.sb.mcp!.hub.refresh(server);
    const health = await get('/admin/health');
    expect(health).toContain('data-mcp-health');
    expect(health).toMatch(/wiki[\s\S]*failing/);
  });
});
