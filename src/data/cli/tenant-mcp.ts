import type { Config } from '../../config/index.js';
import { createMcpRuntime, type McpRuntime } from '../../mcp/index.js';
import {
  addServer,
  parseHeaders,
  removeServer,
  serverTools,
  setToolsEnabled,
  type McpToolView,
} from '../../mcp/admin.js';
import { summarize } from '../../mcp/store.js';
import { MCP_OAUTH_OPTIONS, MCP_OAUTH_USAGE, mcpOAuthCommand } from './tenant-mcp-oauth.js';
import { createMemoryKv } from '../../state/kv.js';
import type { Logger } from '../../telemetry/logger.js';
import type { AdminDataPort } from '../rpc-port.js';

/** The `mcp` command's options (the rest of `npm run tenants` ignores them). */
export const MCP_OPTIONS = {
  header: { type: 'string', multiple: true },
  oauth: { type: 'boolean' },
  ...MCP_OAUTH_OPTIONS,
} as const;

export const MCP_USAGE = [
  'mcp add <tenant> <name> <url> [--header Name=value]… [--oauth]',
  MCP_OAUTH_USAGE,
  'mcp list <tenant>',
  'mcp remove <tenant> <name>',
  'mcp tools <tenant> <name>',
  'mcp enable <tenant> <name> <tool…|*>',
  'mcp disable <tenant> <name> <tool…|*>',
];

/** What `mcp` needs beyond the data port: the settings (loopback, the sealing key) and a logger. */
export interface McpCliDeps {
  config: Config;
  log: Logger;
}

/**
 * `npm run tenants -- mcp …`: a tenant's MCP servers (issue 44). `add` connects and lists the
 * server's tools first (refusing a server that cannot be reached or whose names collide); the
 * tools the server marks read-only are on, the others wait for `enable`. Returns the exit code.
 */
export async function mcpCommand(
  port: AdminDataPort,
  words: readonly string[],
  options: {
    header?: string[] | undefined;
    oauth?: boolean | undefined;
    'client-id'?: string | undefined;
    'clear-client-id'?: boolean | undefined;
  },
  out: (line: string) => void,
  deps: McpCliDeps,
): Promise<number> {
  const [action, slug, name, ...rest] = words;
  if (!action || !slug) return 2;
  const tenant = await port.tenantBySlug(slug);
  if (!tenant) {
    out(`Error: unknown tenant ${slug}.`);
    return 1;
  }
  const mcp: McpRuntime = createMcpRuntime(deps.config, port, createMemoryKv(), deps.log);
  try {
    switch (action) {
      case 'add': {
        const [url] = rest;
        if (!name || !url || rest.length > 1) return 2;
        const headers = parseHeaders(options.header ?? []);
        if (!headers.ok) {
          out(`Cannot add ${name}: ${headers.error}.`);
          return 2;
        }
        const added = await addServer(mcp, deps.config, tenant.id, {
          name,
          url,
          headers: headers.headers,
          ...(options.oauth ? { authKind: 'oauth' as const } : {}),
        });
        if (!added.ok) {
          out(`Cannot add ${name}: ${added.error}.`);
          return 1;
        }
        const on = added.value.tools.filter((t) => t.enabled).length;
        out(
          `Added ${name} to ${slug} (${added.value.transport ?? 'not connected yet'}): ${added.value.tools.length} tools, ${on} on.`,
        );
        printTools(added.value.tools, out);
        if (added.value.tools.length > on)
          out(`Tools not marked read-only start off: npm run tenants -- mcp enable ${slug} ${name} <tool>`);
        out('Running bots see the change within 10 seconds.');
        return 0;
      }
      case 'list': {
        const servers = await mcp.store.list(tenant.id);
        if (servers.length === 0) {
          out(`${slug} has no MCP servers.`);
          return 0;
        }
        for (const s of servers.map(summarize)) {
          const headers = s.headerNames.length ? ` headers: ${s.headerNames.join(', ')}` : '';
          const choices = [
            s.enabledTools.length ? `on: ${s.enabledTools.join(', ')}` : '',
            s.disabledTools.length ? `off: ${s.disabledTools.join(', ')}` : '',
          ].filter(Boolean);
          out(
            `${s.name}  ${s.url}  auth: ${s.authKind}${headers}${choices.length ? `  ${choices.join('; ')}` : ''}${s.headersUnreadable ? '  (headers unreadable: add it again)' : ''}`,
          );
        }
        return 0;
      }
      case 'remove': {
        if (!name || rest.length) return 2;
        const removed = await removeServer(mcp, tenant.id, name);
        out(removed.ok ? `Removed ${name} from ${slug}.` : `Error: ${removed.error}.`);
        return removed.ok ? 0 : 1;
      }
      case 'tools': {
        if (!name || rest.length) return 2;
        const listed = await serverTools(mcp, tenant.id, name);
        if (!listed.ok) {
          out(`Error: ${listed.error}.`);
          return 1;
        }
        printTools(listed.value.tools, out);
        return 0;
      }
      case 'enable':
      case 'disable': {
        if (!name || rest.length === 0) return 2;
        const set = await setToolsEnabled(mcp, tenant.id, name, rest, action === 'enable');
        if (!set.ok) {
          out(`Error: ${set.error}.`);
          return 1;
        }
        printTools(set.value.tools, out);
        out('Running bots see the change within 10 seconds.');
        return 0;
      }
      case 'oauth':
        return rest.length ? 2 : await mcpOAuthCommand(mcp, { id: tenant.id, slug }, name, options, out);
      default:
        return 2;
    }
  } finally {
    await mcp.hub.close();
  }
}

function printTools(tools: readonly McpToolView[], out: (line: string) => void): void {
  for (const t of tools)
    out(
      `  ${t.enabled ? 'on ' : 'off'}  ${t.name}  ${t.readOnly ? '(read-only, says the server)' : '(may write)'}${t.description ? `  ${t.description.slice(0, 80)}` : ''}`,
    );
}
