import { randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Agent } from '../../agent/agent.js';
import type { DataPort } from '../../contract/data.js';
import type { IncomingMessage } from '../../contract/turn.js';
import type { Logger } from '../../telemetry/logger.js';
import type { Caller } from './access.js';
import { anonymousUserId, chosenTenant } from './chat-request.js';
import { errorBody } from './error-body.js';
import type { TurnGate } from './in-flight.js';

/** The name and version MCP clients see in `initialize`. */
const SERVER_INFO = { name: 'switchboard', version: '1.0.0' };

/**
 * The SDK's server side, imported at the first request to `/mcp` rather than with the app: a
 * deployment whose MCP clients never come does not pay its start-up time (src/mcp/sdk.ts does the
 * same for the client side). A failed import is tried again at the next request.
 */
async function importServerSdk() {
  const [server, transport, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return {
    Server: server.Server,
    WebStandardStreamableHTTPServerTransport: transport.WebStandardStreamableHTTPServerTransport,
    CallToolRequestSchema: types.CallToolRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
  };
}
let serverSdk: ReturnType<typeof importServerSdk> | undefined;
const loadServerSdk = () =>
  (serverSdk ??= importServerSdk().catch((err: unknown) => {
    serverSdk = undefined;
    throw err;
  }));

/**
 * `/mcp`: the tenant's own `read` tools for MCP clients (desktop assistants, IDEs) over Streamable
 * HTTP, issue 44 item 8. Behind the same guard as `/api/*` (api-caller.ts, mounted by app.ts): a
 * tenant token serves its tenant, API_TOKEN the default tenant, and without API_TOKEN a loopback
 * program may call it as a guest (`?tenant=<slug>` chooses a tenant, as `/api/chat`'s `tenant`).
 *
 * Stateless: each POST gets a server and a transport of its own and answers with JSON, so any
 * replica answers any request, and nothing is kept between them (no session, no GET stream).
 * The low-level `Server` rather than `McpServer`: the tool list is the tenant's, read from the
 * agent's registry per request, not a fixed set registered once.
 *
 * Each `tools/call` takes a place in `/api/chat`'s count of turns in flight (`turns`,
 * API_MAX_TURNS_IN_FLIGHT, in-flight.ts): a call is a turn without a model, and both hold the same
 * heap. Past it the request is refused at once with 503, Retry-After and a JSON-RPC error.
 */
export function mountMcp(
  app: Hono,
  opts: { agent: Agent; log: Logger; data: DataPort | undefined; turns: TurnGate; maxTurnsInFlight: number },
): void {
  const { agent, log, data, turns, maxTurnsInFlight } = opts;

  app.post('/mcp', async (c) => {
    const caller = c.get('caller');
    const tenant = await chosenTenant(caller, c.req.query('tenant'), data, log);
    if (!tenant.ok) return c.json(errorBody(tenant.code, tenant.message), tenant.status);
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      return c.json(rpcError(null, -32700, 'Parse error: Invalid JSON'), 400);
    }
    const places = enterCalls(body, turns);
    if (!places) {
      c.header('Retry-After', '1');
      const message = `This server is already running as many tool calls and turns as it takes at once (${maxTurnsInFlight}); try again in a moment.`;
      return c.json(rpcError(singleId(body), -32000, message, { code: 'overloaded', retryAfterSeconds: 1 }), 503);
    }
    // The places are freed when the answer is ready or, after a hang-up, once the running calls have stopped.
    let running = 0;
    let hungUp = false;
    const free = () => places.splice(0).forEach((release) => release());
    try {
      const sdk = await loadServerSdk();
      const { McpError, ErrorCode } = sdk;
      const base = mcpMessage(caller, tenant.slug);
      const server = new sdk.Server(SERVER_INFO, { capabilities: { tools: {} } });
      server.setRequestHandler(sdk.ListToolsRequestSchema, async () => {
        try {
          const tools = await agent.served.list({ ...base, messageId: randomUUID() });
          return {
            tools: tools.map((t) => ({
              name: t.name,
              title: t.title,
              description: t.description,
              inputSchema: t.inputSchema as { type: 'object' },
              annotations: { title: t.title, readOnlyHint: true, destructiveHint: false, openWorldHint: false },
            })),
          };
        } catch (err) {
          log.warn({ err, path: '/mcp' }, 'could not list the tools for an MCP client');
          throw new McpError(ErrorCode.InternalError, 'The tools could not be listed. Try again shortly.');
        }
      });
      server.setRequestHandler(sdk.CallToolRequestSchema, async (req, extra): Promise<CallToolResult> => {
        running++;
        try {
          const message = { ...base, messageId: randomUUID(), threadId: `mcp-${randomUUID()}` };
          const result = await agent.served.call(message, req.params.name, req.params.arguments ?? {}, extra.signal);
          if (result.ok)
            return {
              content: [{ type: 'text', text: result.text }],
              ...(result.data ? { structuredContent: result.data } : {}),
            };
          if (result.code === 'unknown_tool') throw new McpError(ErrorCode.InvalidParams, result.message);
          return { isError: true, content: [{ type: 'text', text: result.message }] };
        } finally {
          if (--running === 0 && hungUp) free();
        }
      });
      const transport = new sdk.WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      // The client hanging up ends its calls (their tools' signals abort); its answer never comes.
      const hangUp = () => {
        hungUp = true;
        void server.close();
        if (running === 0) free();
      };
      c.req.raw.signal.addEventListener('abort', hangUp, { once: true });
      try {
        return await transport.handleRequest(c.req.raw, { parsedBody: body });
      } finally {
        c.req.raw.signal.removeEventListener('abort', hangUp);
        void server.close();
      }
    } finally {
      if (!hungUp) free();
    }
  });

  // Stateless: no server-initiated stream to open, and no session to end.
  const notAllowed = (c: Context) =>
    c.json(rpcError(null, -32000, 'Method not allowed: this MCP server is stateless; POST only.'), 405, {
      allow: 'POST',
    });
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);
}

/** A JSON-RPC error answer, as the SDK's transport writes its own. */
function rpcError(id: string | number | null, code: number, message: string, data?: Record<string, unknown>) {
  return { jsonrpc: '2.0' as const, error: { code, message, ...(data ? { data } : {}) }, id };
}

/** A place in `turns` for each `tools/call` in the body (one message or a batch); null when they do not all fit. */
function enterCalls(body: unknown, turns: TurnGate): (() => void)[] | null {
  const calls = (Array.isArray(body) ? body : [body]).filter(
    (m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'tools/call',
  ).length;
  const places: (() => void)[] = [];
  for (let i = 0; i < calls; i++) {
    const release = turns.enter();
    if (!release) {
      places.forEach((r) => r());
      return null;
    }
    places.push(release);
  }
  return places;
}

/** The id of a single request, for its error answer (a batch's errors carry none). */
function singleId(body: unknown): string | number | null {
  const id = !Array.isArray(body) && typeof body === 'object' && body !== null ? (body as { id?: unknown }).id : null;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** The message a call is for: the HTTP platform's, in the `mcp` channel, from the token's holder (or the loopback guest). */
function mcpMessage(caller: Caller, tenant: string | undefined): Omit<IncomingMessage, 'messageId'> {
  const anonymous = caller.kind === 'anonymous';
  return {
    platform: 'http',
    workspaceId: 'default',
    channelId: 'mcp',
    threadId: 'mcp',
    // As /api/chat: an anonymous caller is its address, so its limits and budget follow it.
    userId: anonymous ? anonymousUserId(caller.address) : 'mcp',
    role: anonymous ? 'guest' : 'member',
    isDirect: true,
    text: '',
    ...(tenant !== undefined ? { tenant } : {}),
  };
}
