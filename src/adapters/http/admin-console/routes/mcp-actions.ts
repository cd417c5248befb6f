import type { Context, Hono } from 'hono';
import { addServer, parseHeaders, removeServer, setToolsEnabled } from '../../../../mcp/admin.js';
import type { McpRuntime } from '../../../../mcp/index.js';
import type { AdminDataPort } from '../../../../data/rpc-port.js';
import type { ConsoleContext } from '../context.js';
import { guarded } from './respond.js';
import { tenantsView } from './tenants-view.js';

/** A field of the posted form (parsed, its CSRF token checked, by the guard), trimmed. */
const field = (c: Context, name: string): string => {
  const v = (c.get('consoleForm') as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v.trim() : '';
};

/**
 * The Tenants page's forms for MCP servers (issue 44), behind the guard (a live session and its
 * CSRF token):
 *
 *   POST /admin/mcp/add      connects, lists the tools and stores the server → /admin/tenants?notice=mcp-added#mcp
 *   POST /admin/mcp/remove   drops a server                                  → /admin/tenants?notice=mcp-removed#mcp
 *   POST /admin/mcp/tools    enables or disables a tool (or `*`)             → /admin/tenants?notice=mcp-tools#mcp
 */
export function mountMcpActions(app: Hono, ctx: ConsoleContext, mcp: McpRuntime): void {
  const { log } = ctx;
  const refused = (c: Context, p: AdminDataPort, text: string) =>
    tenantsView(ctx, c, p, { notice: { text, error: true } }, 400);
  const tenantOf = async (c: Context, p: AdminDataPort) => p.tenantBySlug(field(c, 'tenant'));

  app.post(
    '/admin/mcp/add',
    guarded(ctx, 'tenants', 'Tenants', async (c, p) => {
      const tenant = await tenantOf(c, p);
      if (!tenant) return refused(c, p, 'Choose a tenant.');
      const lines = field(c, 'headers')
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter(Boolean)
        .map((l) => l.replace(/^([^:=]+):\s*/, '$1='));
      const headers = parseHeaders(lines);
      if (!headers.ok) return refused(c, p, `Cannot add the server: ${headers.error}.`);
      const name = field(c, 'name');
      const added = await addServer(mcp, mcp.config, tenant.id, {
        name,
        url: field(c, 'url'),
        headers: headers.headers,
        ...(field(c, 'auth') === 'oauth' ? { authKind: 'oauth' as const } : {}),
      });
      if (!added.ok) return refused(c, p, `Cannot add ${name}: ${added.error}.`);
      log.info({ tenant: tenant.slug, mcpServer: name }, 'console: added an MCP server');
      return c.redirect('/admin/tenants?notice=mcp-added#mcp', 303);
    }),
  );

  app.post(
    '/admin/mcp/remove',
    guarded(ctx, 'tenants', 'Tenants', async (c, p) => {
      const tenant = await tenantOf(c, p);
      if (!tenant) return refused(c, p, 'Unknown tenant.');
      const removed = await removeServer(mcp, tenant.id, field(c, 'name'));
      if (!removed.ok) return refused(c, p, `${removed.error}.`);
      log.info({ tenant: tenant.slug, mcpServer: removed.value.name }, 'console: removed an MCP server');
      return c.redirect('/admin/tenants?notice=mcp-removed#mcp', 303);
    }),
  );

  app.post(
    '/admin/mcp/tools',
    guarded(ctx, 'tenants', 'Tenants', async (c, p) => {
      const tenant = await tenantOf(c, p);
      if (!tenant) return refused(c, p, 'Unknown tenant.');
      const on = field(c, 'action') === 'enable';
      const set = await setToolsEnabled(mcp, tenant.id, field(c, 'name'), [field(c, 'tool')], on);
      if (!set.ok) return refused(c, p, `${set.error}.`);
      return c.redirect('/admin/tenants?notice=mcp-tools#mcp', 303);
    }),
  );
}
