import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { DataError } from '../../contract/data.js';
import { TOOL_FAMILIES } from '../../contract/toolsets.js';
import type { AdminDataPort } from '../../data/rpc-port.js';
import { tenantApprovalsListRow, tenantApprovalsRow, tenantToolsListRow, tenantToolsRow } from '../../data/rows.js';
import { approvalSettingsSchema } from '../../contract/approvals.js';
import type { Logger } from '../../telemetry/logger.js';

/**
 * Tool families per tenant on the admin API (behind ADMIN_TOKEN, mounted by `mountAdmin`):
 *
 *   GET /tts_admin/tenants                   → { status: "ok", tenants: [{ slug, name, is_default, tools }] }
 *   PUT /tts_admin/tenants/{slug}/tools      { "tools": ["campaigns", "web"] }  or  { "tools": null } (automatic)
 *                                            → { status: "ok", tenant: slug, tools }
 *
 *   GET /tts_admin/tenants/approvals         → { status: "ok", tenants: [{ slug, name, is_default, approvals }] }
 *   PUT /tts_admin/tenants/{slug}/approvals  { "approvals": { policy?, taint?, approvers? } }  or  { "approvals": null } (defaults)
 *                                            → { status: "ok", tenant: slug, approvals }
 *
 * Running bots see a change within 10 s (the data port's tenant cache).
 */
const toolsBody = z.strictObject({ tools: z.array(z.enum(TOOL_FAMILIES)).max(TOOL_FAMILIES.length).nullable() });

const approvalsBody = z.strictObject({ approvals: approvalSettingsSchema.nullable() });

const fail = (c: Context, status: 400 | 404 | 503, code: string, message: string) =>
  c.json({ status: 'error', error: { code, message } }, status);

export function mountTenantAdmin(app: Hono, base: string, port: AdminDataPort, log: Logger): void {
  app.get(`${base}/tenants`, async (c) => {
    try {
      return c.json({ status: 'ok', tenants: await port.admin('list_tenant_tools', {}, tenantToolsListRow) });
    } catch (err) {
      log.error({ err, path: c.req.path }, 'admin request failed');
      return fail(c, 503, 'unavailable', 'The database could not complete that. It has been logged.');
    }
  });

  app.put(`${base}/tenants/:slug/tools`, async (c) => {
    const slug = c.req.param('slug');
    const parsed = toolsBody.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return fail(c, 400, 'validation_failed', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
    }
    try {
      const [row] = await port.admin('set_tenant_tools', { tenant: slug, tools: parsed.data.tools }, tenantToolsRow);
      log.info({ tenant: slug, tools: row?.tools ?? 'auto' }, 'admin set a tenant’s tool families');
      return c.json({ status: 'ok', tenant: slug, tools: row?.tools ?? null });
    } catch (err) {
      if (err instanceof DataError && err.detail?.startsWith('unknown tenant'))
        return fail(c, 404, 'not_found', `No tenant ${slug}.`);
      log.error({ err, path: c.req.path }, 'admin request failed');
      return fail(c, 503, 'unavailable', 'The database could not complete that. It has been logged.');
    }
  });

  app.get(`${base}/tenants/approvals`, async (c) => {
    try {
      return c.json({ status: 'ok', tenants: await port.admin('list_tenant_approvals', {}, tenantApprovalsListRow) });
    } catch (err) {
      log.error({ err, path: c.req.path }, 'admin request failed');
      return fail(c, 503, 'unavailable', 'The database could not complete that. It has been logged.');
    }
  });

  app.put(`${base}/tenants/:slug/approvals`, async (c) => {
    const slug = c.req.param('slug');
    const parsed = approvalsBody.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return fail(c, 400, 'validation_failed', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
    }
    try {
      const [row] = await port.admin(
        'set_tenant_approvals',
        { tenant: slug, approvals: parsed.data.approvals },
        tenantApprovalsRow,
      );
      log.info({ tenant: slug, approvals: row?.approvals ?? 'default' }, 'admin set a tenant’s approval settings');
      return c.json({ status: 'ok', tenant: slug, approvals: row?.approvals ?? null });
    } catch (err) {
      if (err instanceof DataError && err.detail?.startsWith('unknown tenant'))
        return fail(c, 404, 'not_found', `No tenant ${slug}.`);
      log.error({ err, path: c.req.path }, 'admin request failed');
      return fail(c, 503, 'unavailable', 'The database could not complete that. It has been logged.');
    }
  });
}
