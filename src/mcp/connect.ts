import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { BlockedAddressError } from '../net/public-fetch.js';
import { isSdkError, mcpSdk } from './sdk.js';
import type { McpServer } from './store.js';
import { toolInfo, type McpToolInfo } from './tools.js';

/** A live connection to one of a tenant's MCP servers. */
export interface McpConnection {
  client: Client;
  /** Which transport the server speaks: Streamable HTTP, or the older HTTP+SSE. */
  transport: 'streamable-http' | 'sse';
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** The only way out to the server: https (or loopback http when allowed), public addresses, each redirect checked. */
  fetch: typeof fetch;
  /** For `auth_kind = 'oauth'` servers (src/mcp/oauth.ts): the SDK's OAuth client provider. */
  authProvider?: OAuthClientProvider;
  /** How long the handshake may take. */
  timeoutMs: number;
  /** The server said its tool list changed (`notifications/tools/list_changed`). */
  onToolsChanged?: () => void;
  /** The connection closed (the server went away, or we closed it). */
  onClose?: () => void;
}

export const CLIENT_INFO = { name: 'switchboard', version: '0.1.0' };

/**
 * Connects to `server`: Streamable HTTP first; when the server answers that with a 4xx (it only
 * speaks the older protocol), the HTTP+SSE transport. Only the tenant's own headers and, for an
 * OAuth server, the provider's token are sent: never a platform token, API token or model key.
 */
export async function connectMcpServer(
  server: Pick<McpServer, 'url' | 'headers'>,
  opts: ConnectOptions,
): Promise<McpConnection> {
  const url = new URL(server.url);
  const requestInit: RequestInit = { headers: { ...server.headers } };
  const auth = opts.authProvider ? { authProvider: opts.authProvider } : {};
  const { Client, SSEClientTransport, StreamableHTTPClientTransport, ToolListChangedNotificationSchema } =
    await mcpSdk();
  const start = async (transport: McpConnection['transport']): Promise<McpConnection> => {
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      opts.onToolsChanged?.();
      return Promise.resolve();
    });
    const channel =
      transport === 'streamable-http'
        ? new StreamableHTTPClientTransport(url, { requestInit, fetch: opts.fetch, ...auth })
        : new SSEClientTransport(url, { requestInit, fetch: opts.fetch, ...auth });
    client.onclose = () => opts.onClose?.();
    try {
      await client.connect(channel, { timeout: opts.timeoutMs });
    } catch (err) {
      await client.close().catch(() => {});
      throw err;
    }
    return { client, transport, close: () => client.close() };
  };
  try {
    return await start('streamable-http');
  } catch (err) {
    if (!speaksOnlySse(err)) throw err;
    return await start('sse');
  }
}

/** A Streamable HTTP handshake refused the way an older server refuses it (404, 405, 400…): try HTTP+SSE. */
function speaksOnlySse(err: unknown): boolean {
  if (isSdkError(err, 'UnauthorizedError') || err instanceof BlockedAddressError) return false;
  if (isSdkError(err, 'StreamableHTTPError'))
    return err.code !== undefined && err.code >= 400 && err.code < 500 && err.code !== 401 && err.code !== 403;
  return false;
}

const LIST_PAGES_MAX = 20;

/** Every tool the server lists (`tools/list`, page by page, at most {@link LIST_PAGES_MAX} pages). */
export async function listServerTools(conn: McpConnection, timeoutMs: number): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < LIST_PAGES_MAX; page++) {
    const res = await conn.client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
    for (const t of res.tools) tools.push(toolInfo(t));
    cursor = res.nextCursor;
    if (!cursor) break;
  }
  return tools;
}
