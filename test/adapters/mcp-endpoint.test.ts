/**
 * `/mcp` (issue 44, item 8): the bot's own read tools served to MCP clients over Streamable HTTP,
 * through the real HTTP app on a socket, called by the SDK's own client. A tenant token sees its
 * tenant's read tools only (no write tool, nothing its policy turned off); no token is a 401 like
 * `/api/*`; a call is admitted by the flood limit and recorded in the turn record like a turn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHttpApp } from '../../src/adapters/http/app.js';
import { startHttpServer, type RunningServer } from '../../src/adapters/http/server.js';
import { defineTool } from '../../src/contract/tool.js';
import { newThreadState } from '../../src/contract/thread-state.js';
import { createApiToken } from '../../src/data/api-tokens.js';
import type { AdminDataPort } from '../../src/data/index.js';
import { tenantApprovalsRow } from '../../src/data/rows.js';
import { openPgliteTestPort } from '../helpers/db.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { createNoteTool } from '../helpers/note-tool.js';
import { addTenant } from '../tools/business/fixtures.js';
import { startMcpServer, text, type TestMcpServer } from '../helpers/mcp-servers.js';
import { usageRow } from '../helpers/usage-rows.js';

const API = 'operator-api-token';

/** A read tool whose answer says whose tenant ran it. */
const whoAmI = defineTool({
  name: 'who_am_i',
  title: 'Naming the tenant',
  description: 'Says which workspace this is, with a greeting.',
  input: z.object({ greeting: z.string().max(40) }),
  async run({ greeting }, ctx) {
    return { content: `${greeting}, tenant ${ctx.tenant.slug ?? ctx.tenant.id}` };
  },
});
/** A read tool the `cove` tenant turned off. */
const peek = defineTool({
  name: 'peek',
  title: 'Peeking',
  description: 'Peeks.',
  input: z.object({}),
  async run() {
    return { content: 'peeked' };
  },
});

describe('/mcp serves a tenant its own read tools', () => {
  let port: AdminDataPort;
  let h: Harness;
  let server: RunningServer;
  let open: RunningServer;
  let harbourToken: string;
  let coveToken: string;
  let crm: TestMcpServer;
  const note = createNoteTool();
  const clients: Client[] = [];

  beforeAll(async () => {
    port = await openPgliteTestPort();
    h = await startHarness({
      data: port,
      tools: [whoAmI, peek, note.tool],
      // Three calls a minute per user: the flood limit of a turn applies to a call.
      env: { USER_MESSAGES_PER_MINUTE: '3', MCP_ALLOW_LOOPBACK_HTTP: 'true' },
    });
    await addTenant(port, 'harbour', false);
    await addTenant(port, 'cove', false);
    await port.admin(
      'set_tenant_approvals',
      { tenant: 'cove', approvals: { policy: { peek: 'off' } } },
      tenantApprovalsRow,
    );
    harbourToken = (await createApiToken(port, 'harbour')).token;
    // harbour's own MCP server: its read-only tool is offered to harbour's turns, but /mcp serves the bot's own tools only.
    crm = await startMcpServer({
      tools: [{ name: 'lookup', annotations: { readOnlyHint: true }, handler: () => text('from the crm') }],
    });
    const harbourId = (await port.tenantBySlug('harbour'))!.id;
    await h.sb.mcp!.store.add(harbourId, { name: 'crm', url: crm.url });
    coveToken = (await createApiToken(port, 'cove')).token;
    server = await startHttpServer(
      createHttpApp({ agent: h.sb.agent, log: h.sb.log, data: port, apiToken: API }),
      0,
      '127.0.0.1',
    );
    open = await startHttpServer(createHttpApp({ agent: h.sb.agent, log: h.sb.log, data: port }), 0, '127.0.0.1');
  }, 60_000);
  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await server?.close();
    await open?.close();
    await h?.close();
    await port?.close();
    await crm?.close();
  });

  async function connect(url: string, token?: string): Promise<Client> {
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : {},
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }
  const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();
  const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
    (result.content as { type: string; text: string }[]).map((c) => c.text).join('');

  it('a tenant token lists that tenant’s read tools (no write tool) and a call answers for that tenant', async () => {
    const client = await connect(server.url, harbourToken);
    expect(await names(client)).toEqual(['peek', 'who_am_i']);
    // The registry does offer harbour's MCP tool to its turns; /mcp does not serve it on.
    const harbour = (await port.tenantBySlug('harbour'))!;
    const offered = await h.sb.registry.offered({
      tenant: harbour,
      state: newThreadState('k'),
      data: port.forTenant(harbour),
      log: h.sb.log,
    });
    expect([...offered.keys()]).toContain('crm__lookup');
    const listed = (await client.listTools()).tools.find((t) => t.name === 'who_am_i')!;
    expect(listed.inputSchema).toMatchObject({
      type: 'object',
      properties: { greeting: { type: 'string', maxLength: 40 } },
      required: ['greeting'],
    });
    expect(listed.annotations?.readOnlyHint).toBe(true);

    const result = await client.callTool({ name: 'who_am_i', arguments: { greeting: 'Ahoy' } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('Ahoy, tenant harbour');

    // Arguments are validated as the model's are: a fixable error, the tool not run.
    const bad = await client.callTool({ name: 'who_am_i', arguments: { greeting: 7 } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^Invalid arguments: greeting:/);

    // The write tool is not served, listed or not: a protocol error, nothing written.
    await expect(client.callTool({ name: 'write_note', arguments: { text: 'x' } })).rejects.toThrow(
      /No tool "write_note" here/,
    );
    expect(note.written).toEqual([]);

    // Each call is in the turn record, like a turn: the tool and whether it worked.
    const { id } = (await port.tenantBySlug('harbour'))!;
    const rows = (await port.transport.sql!.query(
      `select outcome, error_code, tools, platform from public.turn_log where tenant_id = $1 order by id`,
      [id],
    )) as { outcome: string; error_code: string | null; tools: unknown; platform: string }[];
    expect(rows).toEqual([
      { outcome: 'answered', error_code: null, tools: [{ tool: 'who_am_i', ok: true }], platform: 'http' },
      { outcome: 'answered', error_code: null, tools: [{ tool: 'who_am_i', ok: false }], platform: 'http' },
      { outcome: 'refused', error_code: 'bad_request', tools: [], platform: 'http' },
    ]);
  });

  it('another tenant’s token sees only its own tenant, without the tool its policy turned off', async () => {
    const client = await connect(server.url, coveToken);
    expect(await names(client)).toEqual(['who_am_i']);
    expect(textOf(await client.callTool({ name: 'who_am_i', arguments: { greeting: 'Hi' } }))).toBe('Hi, tenant cove');
    await expect(client.callTool({ name: 'peek', arguments: {} })).rejects.toThrow(/No tool "peek" here/);
    // A token cannot choose another tenant.
    const other = await fetch(`${server.url}/mcp?tenant=harbour`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${coveToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(other.status).toBe(403);
  });

  it('without a token it is closed (401, as /api/*); a wrong token too', async () => {
    await expect(connect(server.url)).rejects.toThrow(/401|Unauthorized/i);
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(init),
      });
    const anonymous = await post({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect((await post({ authorization: 'Bearer sbt_not-a-real-token' })).status).toBe(401);
    // API_TOKEN serves the default tenant.
    const operator = await connect(server.url, API);
    expect(textOf(await operator.callTool({ name: 'who_am_i', arguments: { greeting: 'Hey' } }))).toBe(
      'Hey, tenant default',
    );
  });

  it('without API_TOKEN a loopback program may call it as a guest, as /api/*; a web page may not', async () => {
    const guest = await connect(open.url);
    expect(await names(guest)).toEqual(['peek', 'who_am_i']);
    const page = await fetch(`${open.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        origin: 'https://evil.example',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(page.status).toBe(403);
  });

  it('the flood limit of a turn applies to calls: past it, a call is refused with when to retry', async () => {
    const client = await connect(server.url, harbourToken);
    // harbour's user made 3 calls in the first test (the limit is 3 a minute).
    const refused = await client.callTool({ name: 'who_am_i', arguments: { greeting: 'Again' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/faster than I can answer \(3 a minute\)/);
  });
});

describe('/mcp and the token budgets', () => {
  let port: AdminDataPort;
  let h: Harness;
  let server: RunningServer;
  let client: Client | undefined;

  beforeAll(async () => {
    port = await openPgliteTestPort();
    h = await startHarness({ data: port, tools: [whoAmI], env: { TOKEN_BUDGET_PER_USER_DAILY: '1000' } });
    server = await startHttpServer(
      createHttpApp({ agent: h.sb.agent, log: h.sb.log, data: port, apiToken: API }),
      0,
      '127.0.0.1',
    );
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await server?.close();
    await h?.close();
    await port?.close();
  });

  it('a caller over its daily token budget is refused a call, saying when it resets', async () => {
    client = new Client({ name: 'budget-client', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${API}` } },
      }),
    );
    const call = () => client!.callTool({ name: 'who_am_i', arguments: { greeting: 'Hi' } });
    expect((await call()).isError).toBeFalsy();
    // The same caller's turns today (its user id over /mcp is `mcp`) spent the budget.
    const tenant = await port.defaultTenant();
    await port.recordUsage(usageRow(tenant.id, { userId: 'mcp', promptTokens: 900, completionTokens: 200 }));
    const refused = await call();
    expect(refused.isError).toBe(true);
    expect((refused.content as { text: string }[])[0]!.text).toMatch(/today’s token budget \(1,000 tokens\)/);
  });
});
