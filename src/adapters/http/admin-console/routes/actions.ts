import type { Context, Hono } from 'hono';
import { DataError } from '../../../../contract/data.js';
import { createApiToken, revokeApiToken } from '../../../../data/api-tokens.js';
import { workspaceDecisionRow } from '../../../../data/rows.js';
import type { ConsoleContext } from '../context.js';
import { guarded } from './respond.js';
import { tenantsView } from './tenants-view.js';

/** The database's refusal (unknown tenant, no such token) as a notice; anything else rethrown. */
const refusal = (err: unknown): string | undefined =>
  err instanceof DataError && err.code === 'invalid_input' && err.detail ? err.detail : undefined;

/** A field of the posted form (parsed, its CSRF token checked, by the guard), trimmed. */
const field = (c: Context, name: string): string => {
  const v = (c.get('consoleForm') as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v.trim() : '';
};

/**
 * What the tenants page's forms do (behind the guard: a live session and its CSRF token). Each
 * logs what it changed; a refusal by the database re-renders the page with the reason.
 *
 *   POST /admin/tokens            a tenant's API token: its secret shown once (201, not cached)
 *   POST /admin/tokens/revoke     → /admin/tenants?notice=revoked
 *   POST /admin/installs/decide   a pending workspace approved into a tenant, or rejected
 */
export function mountActions(app: Hono, ctx: ConsoleContext): void {
  const { log } = ctx;

  app.post(
    '/admin/tokens',
    guarded(ctx, 'tenants', 'Tenants', async (c, p) => {
      const tenant = field(c, 'tenant');
      const label = field(c, 'label').slice(0, 200);
      try {
        const created = await createApiToken(p, tenant, label || undefined);
        log.info({ tenant: created.record.tenant_slug, tokenId: created.record.id }, 'console: created an API token');
        // The secret is in this response only: never cached.
        c.header('cache-control', 'no-store');
        return tenantsView(ctx, c, p, { newToken: created }, 201);
      } catch (err) {
        const why = refusal(err);
        if (!why) throw err;
        return tenantsView(ctx, c, p, { notice: { text: why, error: true } }, 400);
      }
    }),
  );

  app.post(
    '/admin/tokens/revoke',
    guarded(ctx, 'tenants', 'Tenants', async (c, p) => {
      try {
        const record = await revokeApiToken(p, field(c, 'id'));
        log.info({ tenant: record.tenant_slug, tokenId: record.id }, 'console: revoked an API token');
        return c.redirect('/admin/tenants?notice=revoked', 303);
      } catch (err) {
        const why = refusal(err);
        if (!why) throw err;
        return tenantsView(ctx, c, p, { notice: { text: why, error: true } }, 404);
      }
    }),
  );

  app.post(
    '/admin/installs/decide',
    guarded(ctx, 'tenants', 'Tenants', async (c, p) => {
      const approve = field(c, 'decision') === 'approve';
      const platform = field(c, 'platform');
      const workspaceId = field(c, 'workspace_id');
      try {
        const [row] = await p.admin(
          'decide_workspace_request',
          { platform, workspace_id: workspaceId, tenant: approve ? field(c, 'tenant') : null },
          workspaceDecisionRow,
        );
        // This replica answers the workspace's next event at once (a refusal may be cached).
        p.forgetTenants?.();
        log.info(
          { platform, workspaceId, tenant: row?.tenant_slug ?? null },
          approve ? 'console: approved a workspace' : 'console: rejected a workspace',
        );
        return c.redirect(`/admin/tenants?notice=${approve ? 'approved' : 'rejected'}`, 303);
      } catch (err) {
        const why = refusal(err);
        if (!why) throw err;
        return tenantsView(ctx, c, p, { notice: { text: why, error: true } }, 400);
      }
    }),
  );
}
