import { randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode as McpErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Agent } from '../../agent/agent.js';
import type { DataPort } from '../../contract/data.js';
import type { IncomingMessage } from '../../contract/turn.js';
import type { Logger } from '../../telemetry/logger.js';
import type { Caller } from './access.js';
import { anonymousUserId, chosenTenant } from './chat-request.js';
import { errorBody } from './error-body.js';

/** The name and version MCP clients see in `initialize`. */
const SERVER_INFO = { name: 'switchboard', version: '1.0.0' };

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
 */
export function mountMcp(app: Hono, opts: { agent: Agent; log: Logger; data: DataPort | undefined }): void {
  const { agent, log, data } = opts;

  app.post('/mcp', async (c) => {
    const caller = c.get('caller');
    const tenant = await chosenTenant(caller, c.req.query('tenant'), data, log);
    if (!tenant.ok) return c.json(errorBody(tenant.code, tenant.message), tenant.status);
    const base = mcpMessage(caller, tenant.slug);
    const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => {
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
        throw new McpError(McpErrorCode.InternalError, 'The tools could not be listed. Try again shortly.');
      }
    });
    server.setRequestHandler(CallToolRequestSchema, async (req, extra): Promise<CallToolResult> => {
      const message = { ...base, messageId: randomUUID(), threadId: `mcp-${randomUUID()}` };
      const result = await agent.served.call(message, req.params.name, req.params.arguments ?? {}, extra.signal);
      if (result.ok)
        return {
          content: [{ type: 'text', text: result.text }],
          ...(result.data ? { structuredContent: result.data } : {}),
        };
      if (result.code === 'unknown_tool') throw new McpError(McpErrorCode.InvalidParams, result.message);
      return { isError: true, content: [{ type: 'text', text: result.message }] };
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: 1024 * 1024,
    });
    await server.connect(transport);
    // The client hanging up ends its calls (their tools' signals abort).
    const hangUp = () => void server.close();
    c.req.raw.signal.addEventListener('abort', hangUp, { once: true });
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      c.req.raw.signal.removeEventListener('abort', hangUp);
      void server.close();
    }
  });

  // Stateless: no server-initiated stream to open, and no session to end.
  const notAllowed = (c: Context) =>
    c.json(
      {
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; POST only.' },
        id: null,
      },
      405,
      { allow: 'POST' },
    );
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);
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
