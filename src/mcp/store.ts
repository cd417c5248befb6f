import type { Config } from '../config/index.js';
import type { AdminDataPort } from '../data/rpc-port.js';
import { mcpServerRemovedRow, mcpServerRow, type McpServerRow } from '../data/rows.js';
import { createSealer, type Sealer } from '../security/sealer.js';

/** A tenant's MCP server as the application uses it: its headers opened. */
export interface McpServer {
  id: string;
  tenantId: string;
  name: string;
  url: string;
  /** The static headers sent with every request to this server (an API key, a bearer). */
  headers: Record<string, string>;
  /** The sealed headers could not be opened (a changed key): the server is not used until re-added. */
  headersUnreadable?: boolean;
  authKind: 'headers' | 'oauth';
  /** Tools the tenant turned on (by the server's own names). */
  enabledTools: string[];
  /** Tools the tenant turned off, read-only ones included. */
  disabledTools: string[];
  createdAt: string;
  updatedAt: string;
}

/** A server's listing for an operator: no header values, only their names. */
export interface McpServerSummary extends Omit<McpServer, 'headers'> {
  headerNames: string[];
}

export function summarize(server: McpServer): McpServerSummary {
  const { headers, ...rest } = server;
  return { ...rest, headerNames: Object.keys(headers) };
}

export class McpStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpStoreError';
  }
}

/** The rows of `mcp_servers` (tenant-scoped SQL functions), headers sealed before they reach SQL. */
export interface McpServerStore {
  list(tenantId: string): Promise<McpServer[]>;
  get(tenantId: string, name: string): Promise<McpServer | undefined>;
  add(
    tenantId: string,
    input: {
      name: string;
      url: string;
      headers?: Record<string, string>;
      authKind?: 'headers' | 'oauth';
      enabledTools?: string[];
    },
  ): Promise<McpServer>;
  /** True when the tenant had a server of that name. */
  remove(tenantId: string, name: string): Promise<boolean>;
  setTools(
    tenantId: string,
    name: string,
    lists: { enabled?: string[]; disabled?: string[] },
  ): Promise<McpServer | undefined>;
}

/** The key that seals MCP secrets: MCP_SECRET_KEY, else SLACK_TOKEN_ENCRYPTION_KEY; undefined without either. */
export function mcpSealer(config: Pick<Config, 'MCP_SECRET_KEY' | 'SLACK_TOKEN_ENCRYPTION_KEY'>): Sealer | undefined {
  if (config.MCP_SECRET_KEY) return createSealer(config.MCP_SECRET_KEY, 'MCP_SECRET_KEY');
  if (config.SLACK_TOKEN_ENCRYPTION_KEY) return createSealer(config.SLACK_TOKEN_ENCRYPTION_KEY);
  return undefined;
}

/** The associated data of a server's sealed values: a value copied onto another row (or tenant) does not open. */
export function sealedAad(tenantId: string, name: string, what = 'headers'): string {
  return `mcp:${what}:${tenantId}:${name}`;
}

export function createMcpServerStore(port: AdminDataPort, sealer: Sealer | undefined): McpServerStore {
  const toServer = (row: McpServerRow): McpServer => {
    let headers: Record<string, string> = {};
    let headersUnreadable = false;
    if (row.headers_sealed) {
      try {
        if (!sealer) throw new Error('no key');
        headers = JSON.parse(sealer.open(row.headers_sealed, sealedAad(row.tenant_id, row.name))) as Record<
          string,
          string
        >;
      } catch {
        headersUnreadable = true;
      }
    }
    return {
      id: row.id,
      tenantId: row.tenant_id,
      name: row.name,
      url: row.url,
      headers,
      ...(headersUnreadable ? { headersUnreadable } : {}),
      authKind: row.auth_kind,
      enabledTools: row.enabled_tools,
      disabledTools: row.disabled_tools,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  };
  return {
    async list(tenantId) {
      const rows = await port.admin('mcp_server_list', { tenant_id: tenantId }, mcpServerRow);
      return rows.map(toServer);
    },
    async get(tenantId, name) {
      return (await this.list(tenantId)).find((s) => s.name === name);
    },
    async add(tenantId, input) {
      const headers = input.headers ?? {};
      let sealed: string | null = null;
      if (Object.keys(headers).length > 0) {
        if (!sealer)
          throw new McpStoreError(
            'headers are stored encrypted: set MCP_SECRET_KEY (openssl rand -hex 32) before adding a server with headers',
          );
        sealed = sealer.seal(JSON.stringify(headers), sealedAad(tenantId, input.name));
      }
      const [row] = await port.admin(
        'mcp_server_add',
        {
          tenant_id: tenantId,
          name: input.name,
          url: input.url,
          headers_sealed: sealed,
          auth_kind: input.authKind ?? 'headers',
          enabled_tools: input.enabledTools ?? [],
        },
        mcpServerRow,
      );
      if (!row) throw new McpStoreError('the server was not saved');
      return toServer(row);
    },
    async remove(tenantId, name) {
      const rows = await port.admin('mcp_server_remove', { tenant_id: tenantId, name }, mcpServerRemovedRow);
      return rows.length > 0;
    },
    async setTools(tenantId, name, lists) {
      const [row] = await port.admin(
        'mcp_server_set_tools',
        {
          tenant_id: tenantId,
          name,
          enabled_tools: lists.enabled ?? null,
          disabled_tools: lists.disabled ?? null,
        },
        mcpServerRow,
      );
      return row ? toServer(row) : undefined;
    },
  };
}
