import type { Context } from 'hono';
import { listApiTokens, type createApiToken } from '../../../../data/api-tokens.js';
import type { AdminDataPort } from '../../../../data/rpc-port.js';
import {
  tenantApprovalsListRow,
  tenantThreadContextRow,
  tenantToolsListRow,
  workspaceRequestRow,
} from '../../../../data/rows.js';
import { approvalSettings, describeApprovals } from '../../../../contract/approvals.js';
import type { ConsoleContext } from '../context.js';
import { tenantsPage } from '../pages/tenants.js';
import { render, sessionOf, type PageStatus } from './respond.js';

/** Notices a redirect may name (by key: no text from the query reaches the page). */
const NOTICES: Record<string, string> = {
  revoked: 'The token was revoked.',
  approved: 'The workspace was approved: its next event is answered (other replicas within 10 s).',
  rejected: 'The request was dropped.',
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
      ...(notice ? { notice } : {}),
      ...(extra.newToken ? { newToken: extra.newToken } : {}),
    }),
    status,
  );
}
