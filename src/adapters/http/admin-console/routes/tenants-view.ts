import type { Context } from 'hono';
import { listApiTokens, type createApiToken } from '../../../../data/api-tokens.js';
import type { AdminDataPort } from '../../../../data/rpc-port.js';
import {
  channelSettingsListRow,
  tenantApprovalsListRow,
  tenantThreadContextRow,
  tenantToolsListRow,
  workspaceRequestRow,
} from '../../../../data/rows.js';
import { approvalSettings, describeApprovals } from '../../../../contract/approvals.js';
import type { ConsoleContext } from '../context.js';
import { tenantsPage } from '../pages/tenants.js';
import { mcpServersSection, type McpServerRowView } from '../pages/mcp-servers.js';
import { mcpOAuthControls } from '../pages/mcp-oauth.js';
import { render, sessionOf, type PageStatus } from './respond.js';

/** Notices a redirect may name (by key: no text from the query reaches the page). */
const NOTICES: Record<string, string> = {
  revoked: 'The token was revoked.',
  approved: 'The workspace was approved: its next event is answered (other replicas within 10 s).',
  rejected: 'The request was dropped.',
  'channel-saved': 'The channel’s settings were saved: its next message uses them (other replicas within 10 s).',
  'channel-cleared': 'The channel’s settings were cleared: the tenant’s apply again.',
  'mcp-added': 'The MCP server was added: its read-only tools are on (other replicas within 10 s).',
  'mcp-removed': 'The MCP server was removed.',
  'mcp-tools': 'The MCP server’s tools were changed (other replicas within 10 s).',
  mcp_client_id: 'The MCP server’s OAuth client id was saved: press Connect to sign in with it.',
};

/**
 * The tenants page, read afresh: GET /admin/tenants, and the answer to its forms (a new token's
 * secret, or why the database refused). The month's usage per tenant is from the ledger.
 */
export async function tenantsView(
  ctx: ConsoleContext,
  c: Context,
  p: AdminDataPort,
  extra: { notice?: { text: string; error?: boolean }; newToken?: Awaited<ReturnType<typeof createApiToken>> } = {},
  status: PageStatus = 200,
): Promise<Response> {
  const at = ctx.now();
  const monthStart = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const monthEnd = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  const [tenants, tokens, requests, approvalRows] = await Promise.all([
    p.admin('list_tenant_tools', {}, tenantToolsListRow),
    listApiTokens(p),
    p.admin('list_workspace_requests', {}, workspaceRequestRow),
    p.admin('list_tenant_approvals', {}, tenantApprovalsListRow),
  ]);
  // The thread before a mention per tenant (issue 42): off, on, or the deployment's THREAD_CONTEXT.
  const threadContext = new Map(
    (await p.admin('list_tenant_thread_context', {}, tenantThreadContextRow)).map(
      (t) => [t.slug, t.thread_context] as const,
    ),
  );
  // Settings per channel (issue 46).
  const channels = await p.admin('list_channel_settings', {}, channelSettingsListRow);
  const approvals = new Map(
    approvalRows.flatMap((t) =>
      t.approvals ? [[t.slug, describeApprovals(approvalSettings({ approvals: t.approvals }))] as const] : [],
    ),
  );
  const usage = new Map(
    await Promise.all(
      tenants.map(async (t) => {
        const u = await p.usageTotals({ tenant: t.slug, from: monthStart, to: monthEnd });
        return [t.slug, u ? { tokens: u.promptTokens + u.completionTokens, costUsd: u.costUsd } : null] as const;
      }),
    ),
  );
  // A tenant's MCP servers (issue 44), with what this replica knows of each.
  const mcp = ctx.deps.mcp;
  let mcpRows: McpServerRowView[] | undefined;
  if (mcp) {
    const health = new Map(mcp.hub.health().map((h) => [`${h.tenantId}/${h.server}`, h]));
    mcpRows = (
      await Promise.all(
        tenants.map(async (t) => {
          const tenant = await p.tenantBySlug(t.slug);
          if (!tenant) return [];
          return (await mcp.store.list(tenant.id)).map((s): McpServerRowView => {
            const h = health.get(`${tenant.id}/${s.name}`);
            const { headers: _sealedAtRest, ...rest } = s;
            return {
              tenant: t.slug,
              server: { ...rest, headerNames: Object.keys(s.headers) },
              ...(h ? { health: h } : {}),
            };
          });
        }),
      )
    ).flat();
  }
  // OAuth grants of the tenants' MCP servers (no secrets): each OAuth row's Connect and client id.
  const grants = new Map(
    (mcp ? await mcp.oauth.overview() : []).map((g) => [`${g.tenant_slug}/${g.server_name}`, g] as const),
  );
  const named = NOTICES[c.req.query('notice') ?? ''];
  const notice = extra.notice ?? (named ? { text: named } : undefined);
  const cfg = ctx.deps.config;
  return render(
    c,
    'Tenants',
    'tenants',
    tenantsPage({
      csrf: sessionOf(c).csrf,
      tenants,
      usage,
      budgets: {
        ...(cfg.TOKEN_BUDGET_PER_USER_DAILY ? { perUserDaily: cfg.TOKEN_BUDGET_PER_USER_DAILY } : {}),
        ...(cfg.TOKEN_BUDGET_PER_TENANT_MONTHLY ? { perTenantMonthly: cfg.TOKEN_BUDGET_PER_TENANT_MONTHLY } : {}),
        ...(cfg.BUDGET_USD_PER_TENANT_MONTHLY ? { usdPerTenantMonthly: cfg.BUDGET_USD_PER_TENANT_MONTHLY } : {}),
      },
      tokens,
      requests,
      approvals,
      threadContext: { tenants: threadContext, deployment: ctx.deps.config.THREAD_CONTEXT ?? 'on' },
      channels,
      ...(mcpRows
        ? {
            mcp: mcpServersSection({
              csrf: sessionOf(c).csrf,
              rows: mcpRows,
              tenants: tenants.map((t) => t.slug),
              // An OAuth server's row: Connect (src/mcp/oauth.ts) and the client id for an authorization server without registration.
              controls: (r) => {
                const g = grants.get(`${r.tenant}/${r.server.name}`);
                return r.server.authKind === 'oauth'
                  ? mcpOAuthControls({
                      csrf: sessionOf(c).csrf,
                      tenant: r.tenant,
                      server: r.server.name,
                      status: g?.status ?? 'not_connected',
                      clientId: g?.client_id ?? null,
                    })
                  : '';
              },
            }),
          }
        : {}),
      ...(notice ? { notice } : {}),
      ...(extra.newToken ? { newToken: extra.newToken } : {}),
    }),
    status,
  );
}
