/**
 * The MCP SDK (a few hundred ms of import time) loads at the first MCP use, not when the app is
 * imported: a deployment without MCP servers or MCP clients never loads it. Its server side loads
 * at the first request to `/mcp`, its client side when a tenant's server is first used in a turn
 * (src/mcp/sdk.ts, src/adapters/http/mcp-route.ts). Node's own module hooks see every module the
 * process loads; this file imports the app, and the test's MCP server, only after they are set.
 */
import { registerHooks } from 'node:module';
import { afterAll, expect, it } from 'vitest';
import type { Harness } from '../helpers/harness.js';
import type { TestMcpServer } from '../helpers/mcp-servers.js';

const loaded: string[] = [];
registerHooks({
  load(url, context, next) {
    const at = url.indexOf('/@modelcontextprotocol/sdk/dist/');
    if (at >= 0) loaded.push(url.slice(at + '/@modelcontextprotocol/sdk/dist/'.length).replace(/^(esm|cjs)\//, ''));
    return next(url, context);
  },
});
const has = (path: string) => loaded.includes(path);

let h: Harness | undefined;
let crm: TestMcpServer | undefined;
afterAll(async () => {
  await h?.close();
  await crm?.close();
});

it('imports the app without the SDK; /mcp loads its server side, a tenant’s server its client side', async () => {
  const { collect, message, replyOf, startHarness } = await import('../helpers/harness.js');
  const { createHttpApp } = await import('../../src/adapters/http/app.js');
  await import('../../src/wiring/serve.js'); // what src/main.ts imports
  const { peer } = await import('../helpers/peer.js');
  h = await startHarness({ env: { MCP_ALLOW_LOOPBACK_HTTP: 'true' } });
  expect(loaded).toEqual([]);

  // A turn of a tenant without MCP servers: still not loaded.
  h.llm.script({ text: 'Hello.' });
  expect(replyOf(await collect(h.sb.agent.handle(message('hi'))))?.text).toBe('Hello.');
  expect(loaded).toEqual([]);

  // The first request to /mcp: the server side, not the client.
  const app = createHttpApp({ agent: h.sb.agent, log: h.sb.log });
  const res = await app.request(
    '/mcp',
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    },
    peer(),
  );
  expect(res.status).toBe(200);
  expect(((await res.json()) as { result: { tools: unknown[] } }).result.tools).toBeInstanceOf(Array);
  expect(has('server/webStandardStreamableHttp.js')).toBe(true);
  expect(has('client/index.js')).toBe(false);

  // A tenant's server used in a turn: the client side. (The test's MCP server loads the SDK's
  // server side itself, so it starts only now.)
  const { startMcpServer, text } = await import('../helpers/mcp-servers.js');
  crm = await startMcpServer({
    tools: [{ name: 'lookup', annotations: { readOnlyHint: true }, handler: () => text('Ana Silva, gold tier.') }],
  });
  const tenant = await h.sb.data.defaultTenant();
  await h.sb.mcp!.store.add(tenant.id, { name: 'crm', url: crm.url });
  h.sb.mcp!.hub.invalidate(tenant.id); // the first turn's empty list of servers is held 10 s
  expect(has('client/index.js')).toBe(false);
  h.llm.script({ toolCalls: [{ name: 'crm__lookup', arguments: {} }] }, { text: 'Ana is gold tier.' });
  expect(replyOf(await collect(h.sb.agent.handle(message('Who is Ana?', { threadId: 't-crm' }))))?.text).toBe(
    'Ana is gold tier.',
  );
  expect(crm.calls.map((c) => c.name)).toEqual(['lookup']);
  expect(has('client/index.js')).toBe(true);
  expect(has('client/streamableHttp.js')).toBe(true);
});
