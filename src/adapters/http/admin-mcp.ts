import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { AdminDataPort } from '../../data/rpc-port.js';
import type { McpRuntime } from '../../mcp/index.js';
import { addServer, removeServer, serverTools, setToolsEnabled, type McpAdminResult } from '../../mcp/admin.js';
import { summarize } from '../../mcp/store.js';
import type { Logger } from '../../telemetry/logger.js';

/**
 * A tenant's MCP servers on the admin API (issue 44; behind ADMIN_TOKEN, mounted by `mountAdmin`):
 *
 *   GET    /tts_admin/tenants/{slug}/mcp                  → { status: "ok", servers: [{ name, url, authKind, headerNames, enabledTools, disabledTools, health? }] }
 *   POST   /tts_admin/tenants/{slug}/mcp                  { "name", "url", "headers"?: { "X-Api-Key": "…" } }
 *                                                         → 201 { status: "ok", server, tools: [{ name, tool, readOnly, enabled }], transport }
 *   DELETE /tts_admin/tenants/{slug}/mcp/{name}           → { status: "ok", removed: name }
 *   GET    /tts_admin/tenants/{slug}/mcp/{name}/tools     → { status: "ok", server, tools }   (listed now)
 *   PUT    /tts_admin/tenants/{slug}/mcp/{name}/tools     { "enable"?: ["tool", "*"], "disable"?: [...] } → { status: "ok", server, tools }
 *   PUT    /tts_admin/tenants/{slug}/mcp/{name}/oauth     { "clientId": "…" | null } → { status: "ok", server, oauth: { status, clientId } }
 *   GET    /tts_admin/mcp/health                          → { status: "ok", servers: [{ tenantId, server, host, state, tools, enabled, error?, since? }] }
 *
 * Header values are write-only: no answer ever carries one.
 */
const addBody = z.strictObject({
  name: z.string().trim().min(1).max(30),
  url: z.string().trim().min(1).max(2_000),
  headers: z.record(z.string().max(100), z.string().max(4_000)).optional(),
  /** `oauth`: listed once an operator connected it (the console's Connect, src/mcp/oauth.ts). */
  authKind: z.enum(['headers', 'oauth']).optional(),
});
const oauthBody = z.strictObject({ clientId: z.string().trim().min(1).max(500).nullable() });
const toolsBody = z
  .strictObject({
    enable: z.array(z.string().min(1).max(200)).max(500).optional(),
    disable: z.array(z.string().min(1).max(200)).max(500).optional(),
  })
  .refine((b) => b.enable?.length || b.disable?.length, { error: 'give enable or disable' });

const fail = (c: Context, status: 400 | 404 | 502 | 503, code: string, message: string) =>
  c.json({ status: 'error', error: { code, message } }, status);
const codeOf = (status: number) =>
  status === 404 ? 'not_found' : status === 502 ? 'server_unreachable' : 'validation_failed';

export function mountMcpAdmin(app: Hono, base: string, port: AdminDataPort, mcp: McpRuntime, log: Logger): void {
  /** The tenant in the path, or the response saying why not. */
  const tenantOf = async (c: Context): Promise<{ id: string; slug: string } | Response> => {
    const slug = c.req.param('slug') ?? '';
    const tenant = await port.tenantBySlug(slug);
    return tenant ? { id: tenant.id, slug } : fail(c, 404, 'not_found', `No tenant ${slug}.`);
  };
  const answer = <T extends object>(c: Context, result: McpAdminResult<T>, status: 200 | 201 = 200) =>
    result.ok
      ? c.json({ status: 'ok', ...result.value }, status)
      : fail(c, result.status, codeOf(result.status), result.error);
  const guarded =
    (handler: (c: Context, tenant: { id: string; slug: string }) => Promise<Response>) => async (c: Context) => {
      try {
        const tenant = await tenantOf(c);
        return tenant instanceof Response ? tenant : await handler(c, tenant);
      } catch (err) {
        log.error({ err, path: c.req.path }, 'admin request failed');
        return fail(c, 503, 'unavailable', 'The database could not complete that. It has been logged.');
      }
    };
  const invalid = (c: Context, error: z.ZodError) => {
    const issue = error.issues[0];
    return fail(c, 400, 'validation_failed', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  };

  app.get(`${base}/mcp/health`, (c) => c.json({ status: 'ok', servers: mcp.hub.health() }));

  app.get(
    `${base}/tenants/:slug/mcp`,
    guarded(async (c, tenant) => {
      const health = new Map(mcp.hub.health().map((h) => [`${h.tenantId}/${h.server}`, h]));
      const servers = (await mcp.store.list(tenant.id)).map((s) => {
        const h = health.get(`${tenant.id}/${s.name}`);
        return { ...summarize(s), ...(h ? { health: h } : {}) };
      });
      return c.json({ status: 'ok', tenant: tenant.slug, servers });
    }),
  );

  app.post(
    `${base}/tenants/:slug/mcp`,
    guarded(async (c, tenant) => {
      const parsed = addBody.safeParse(await c.req.json().catch(() => undefined));
      if (!parsed.success) return invalid(c, parsed.error);
      const headers = Object.fromEntries(
        Object.entries(parsed.data.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
      );
      const added = await addServer(mcp, mcp.config, tenant.id, { ...parsed.data, headers });
      if (added.ok) log.info({ tenant: tenant.slug, mcpServer: parsed.data.name }, 'admin added an MCP server');
      return answer(c, added, 201);
    }),
  );

  app.delete(
    `${base}/tenants/:slug/mcp/:name`,
    guarded(async (c, tenant) => {
      const removed = await removeServer(mcp, tenant.id, c.req.param('name') ?? '');
      if (removed.ok) log.info({ tenant: tenant.slug, mcpServer: removed.value.name }, 'admin removed an MCP server');
      return removed.ok ? c.json({ status: 'ok', removed: removed.value.name }) : answer(c, removed);
    }),
  );

  // The OAuth client id registered by hand (an authorization server without registration); the grant starts over.
  app.put(
    `${base}/tenants/:slug/mcp/:name/oauth`,
    guarded(async (c, tenant) => {
      const parsed = oauthBody.safeParse(await c.req.json().catch(() => undefined));
      if (!parsed.success) return invalid(c, parsed.error);
      const server = await mcp.store.get(tenant.id, c.req.param('name') ?? '');
      if (!server || server.authKind !== 'oauth')
        return fail(c, 404, 'not_found', `No OAuth MCP server ${c.req.param('name') ?? ''} for ${tenant.slug}.`);
      await mcp.oauth.setClientId(server, parsed.data.clientId);
      log.info({ tenant: tenant.slug, mcpServer: server.name }, 'admin set an MCP server’s OAuth client id');
      const { status, clientId } = await mcp.oauth.status(server);
      return c.json({ status: 'ok', server: server.name, oauth: { status, clientId } });
    }),
  );

  app.get(
    `${base}/tenants/:slug/mcp/:name/tools`,
    guarded(async (c, tenant) => answer(c, await serverTools(mcp, tenant.id, c.req.param('name') ?? ''))),
  );

  app.put(
    `${base}/tenants/:slug/mcp/:name/tools`,
    guarded(async (c, tenant) => {
      const parsed = toolsBody.safeParse(await c.req.json().catch(() => undefined));
      if (!parsed.success) return invalid(c, parsed.error);
      const name = c.req.param('name') ?? '';
      let result: McpAdminResult<object> | undefined;
      if (parsed.data.enable?.length) result = await setToolsEnabled(mcp, tenant.id, name, parsed.data.enable, true);
      if (parsed.data.disable?.length && (!result || result.ok))
        result = await setToolsEnabled(mcp, tenant.id, name, parsed.data.disable, false);
      return answer(c, result!);
    }),
  );
}
