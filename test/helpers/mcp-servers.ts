import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type ServerNotification,
  type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * Real MCP servers for tests (issue 44), built with the SDK's McpServer on loopback: Streamable
 * HTTP (stateful sessions, so `notifications/tools/list_changed` reaches the client) or the older
 * HTTP+SSE transport. Tools are plain data (raw JSON Schema, annotations that may lie) and a
 * handler; the server records what it was sent (calls, headers, cancellations).
 */
export interface TestTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations;
  handler?: (args: Record<string, unknown>, extra: ToolExtra) => Promise<CallToolResult> | CallToolResult;
}

export interface ToolExtra {
  signal: AbortSignal;
  /** Sends a progress notification (when the client asked for progress). */
  progress(progress: number, total?: number, message?: string): Promise<void>;
}

export interface TestMcpServer {
  /** The URL a tenant registers: `/mcp` (Streamable HTTP) or `/sse` (HTTP+SSE). */
  url: string;
  tools: TestTool[];
  calls: { name: string; args: Record<string, unknown> }[];
  /** Names of calls whose request the client cancelled. */
  cancelled: string[];
  /** Request headers seen, in order. */
  headers: IncomingHttpHeaders[];
  /** How many `tools/list` requests were answered. */
  lists: number;
  /** Adds or replaces a tool and tells every connected client its list changed. */
  setTools(tools: TestTool[]): Promise<void>;
  /** Answers every HTTP request with this status from now on (undefined: normal again). */
  failWith: number | undefined;
  close(): Promise<void>;
}

export const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export async function startMcpServer(opts: {
  transport?: 'streamable-http' | 'sse';
  tools: TestTool[];
  /** Only these header values are accepted (else 401), e.g. `{ 'x-api-key': 'k' }`. */
  requireHeaders?: Record<string, string>;
}): Promise<TestMcpServer> {
  const kind = opts.transport ?? 'streamable-http';
  const state: TestMcpServer = {
    url: '',
    tools: [...opts.tools],
    calls: [],
    cancelled: [],
    headers: [],
    lists: 0,
    failWith: undefined,
    setTools: async (tools) => {
      state.tools = tools;
      await Promise.all([...servers].map((s) => s.server.sendToolListChanged().catch(() => {})));
    },
    close: async () => {},
  };
  const servers = new Set<McpServer>();

  const makeServer = () => {
    const mcp = new McpServer(
      { name: 'test-mcp', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true } } },
    );
    mcp.server.setRequestHandler(ListToolsRequestSchema, () => {
      state.lists++;
      return {
        tools: state.tools.map((t) => ({
          name: t.name,
          ...(t.description ? { description: t.description } : {}),
          inputSchema: (t.inputSchema ?? { type: 'object', properties: {} }) as { type: 'object' },
          ...(t.annotations ? { annotations: t.annotations } : {}),
        })),
      };
    });
    mcp.server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      const args = req.params.arguments ?? {};
      state.calls.push({ name: req.params.name, args });
      extra.signal.addEventListener('abort', () => state.cancelled.push(req.params.name));
      const tool = state.tools.find((t) => t.name === req.params.name);
      if (!tool) return { content: [{ type: 'text', text: `unknown tool ${req.params.name}` }], isError: true };
      const token = req.params._meta?.progressToken;
      const toolExtra: ToolExtra = {
        signal: extra.signal,
        progress: async (progress, total, message) => {
          if (token === undefined) return;
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress, ...(total ? { total } : {}), ...(message ? { message } : {}) },
          } as ServerNotification);
        },
      };
      return tool.handler ? await tool.handler(args, toolExtra) : text(`${tool.name} ok`);
    });
    servers.add(mcp);
    return mcp;
  };

  const streamable = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    state.headers.push(req.headers);
    if (state.failWith) {
      res.writeHead(state.failWith, { 'content-type': 'text/plain' }).end('failing on purpose');
      return;
    }
    for (const [k, v] of Object.entries(opts.requireHeaders ?? {}))
      if (req.headers[k] !== v) {
        res.writeHead(401, { 'content-type': 'text/plain' }).end('unauthorized');
        return;
      }
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (kind === 'streamable-http' && path === '/mcp') {
      const sid = req.headers['mcp-session-id'];
      let transport = typeof sid === 'string' ? streamable.get(sid) : undefined;
      if (!transport) {
        if (req.method !== 'POST') {
          res.writeHead(400).end('no session');
          return;
        }
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void streamable.set(id, created),
        });
        transport = created;
        await makeServer().connect(created);
      }
      await transport.handleRequest(req, res);
      return;
    }
    if (kind === 'sse' && path === '/sse' && req.method === 'GET') {
      const transport = new SSEServerTransport('/messages', res);
      sse.set(transport.sessionId, transport);
      res.on('close', () => sse.delete(transport.sessionId));
      await makeServer().connect(transport);
      return;
    }
    if (kind === 'sse' && path === '/messages' && req.method === 'POST') {
      const id = new URL(req.url ?? '/', 'http://x').searchParams.get('sessionId') ?? '';
      const transport = sse.get(id);
      if (!transport) {
        res.writeHead(404).end('unknown session');
        return;
      }
      await transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(kind === 'sse' && path === '/sse' ? 405 : 404).end('not here');
  };

  const http: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end('test server error');
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  state.url = `http://127.0.0.1:${port}/${kind === 'sse' ? 'sse' : 'mcp'}`;
  state.close = async () => {
    await Promise.allSettled([...servers].map((s) => s.close()));
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return state;
}

/** `count` read-only tools of one theme: `<prefix>_<n>` with a description naming the theme and the number. */
export function manyTools(prefix: string, count: number, theme: string): TestTool[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `${prefix}_${i + 1}`,
    description: `${theme} number ${i + 1}: look up ${theme} records by id.`,
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    annotations: { readOnlyHint: true },
    handler: (args) => text(`${prefix}_${i + 1} of ${String(args.id)}`),
  }));
}
