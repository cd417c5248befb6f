import type { McpRuntime } from '../../mcp/index.js';

/** `mcp oauth`'s options: the client id registered by hand, or none (dynamic registration). */
export const MCP_OAUTH_OPTIONS = {
  'client-id': { type: 'string' },
  'clear-client-id': { type: 'boolean' },
} as const;

export const MCP_OAUTH_USAGE = 'mcp oauth <tenant> <name> [--client-id <id> | --clear-client-id]';

/**
 * `npm run tenants -- mcp oauth <tenant> <name>`: an OAuth server's grant (issue 44, item 2):
 * its status, and the client id for an authorization server that offers no registration. The
 * consent itself is the console's `Connect` (a browser is needed). Returns the exit code.
 */
export async function mcpOAuthCommand(
  mcp: McpRuntime,
  tenant: { id: string; slug: string },
  name: string | undefined,
  options: { 'client-id'?: string | undefined; 'clear-client-id'?: boolean | undefined },
  out: (line: string) => void,
): Promise<number> {
  if (!name || (options['client-id'] !== undefined && options['clear-client-id'])) return 2;
  const server = await mcp.store.get(tenant.id, name);
  if (!server) {
    out(`Error: ${tenant.slug} has no MCP server ${name}.`);
    return 1;
  }
  if (server.authKind !== 'oauth') {
    out(`Error: ${name} uses headers, not OAuth.`);
    return 1;
  }
  const clientId = options['client-id']?.trim();
  if (clientId !== undefined && (clientId === '' || clientId.length > 500)) {
    out('Error: --client-id is 1 to 500 characters.');
    return 2;
  }
  if (clientId !== undefined || options['clear-client-id']) {
    await mcp.oauth.setClientId(server, clientId ?? null);
    out(
      clientId
        ? `${name} will sign in as client ${clientId}: press Connect on its row in the console.`
        : `${name} will register itself with the authorization server: press Connect on its row in the console.`,
    );
    return 0;
  }
  const { status, detail, clientId: configured } = await mcp.oauth.status(server);
  out(
    `${name}: ${status.replace('_', ' ')}${detail ? ` (${detail})` : ''}; client: ${configured ?? 'registered automatically'}`,
  );
  if (status !== 'connected') out('Connect it from the console: Tenants → MCP servers → Connect.');
  return 0;
}
