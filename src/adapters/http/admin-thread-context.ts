import type { Hono } from 'hono';
import { z } from 'zod';
import { DataError } from '../../contract/data.js';
import type { AdminDataPort } from '../../data/rpc-port.js';
import { tenantThreadContextRow } from '../../data/rows.js';
import type { Logger } from '../../telemetry/logger.js';

/**
 * The thread before a mention, per tenant, on the admin API (behind ADMIN_TOKEN, mounted by `mountAdmin`):
 *
 *   PUT /tts_admin/tenants/{slug}/thread-context   { "threadContext": false }  (off for this tenant),
 *                                                  true (on unless THREAD_CONTEXT=off), or null (the deployment decides)
 *                                                  → { status: "ok", tenant: slug, threadContext }
 *
 * Running bots see a change within 10 s (the data port's tenant cache).
 */
const body = z.strictObject({ threadContext: z.boolean().nullable() });

export function mountThreadContextAdmin(app: Hono, base: string, port: AdminDataPort, log: Logger): void {
  app.put(`${base}/tenants/:slug/thread-context`, async (c) => {
    const slug = c.req.param('slug');
    const parsed = body.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return c.json(
        {
          status: 'error',
          error: {
            code: 'validation_failed',
            message: `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
          },
        },
        400,
      );
    }
    try {
      const [row] = await port.admin(
        'set_tenant_thread_context',
        { tenant: slug, on: parsed.data.threadContext },
        tenantThreadContextRow,
      );
      log.info(
        { tenant: slug, threadContext: row?.thread_context ?? 'default' },
        'admin set a tenant’s thread context',
      );
      return c.json({ status: 'ok', tenant: slug, threadContext: row?.thread_context ?? null });
    } catch (err) {
      if (err instanceof DataError && err.detail?.startsWith('unknown tenant'))
        return c.json({ status: 'error', error: { code: 'not_found', message: `No tenant ${slug}.` } }, 404);
      log.error({ err, path: c.req.path }, 'admin request failed');
      return c.json(
        {
          status: 'error',
          error: { code: 'unavailable', message: 'The database could not complete that. It has been logged.' },
        },
        503,
      );
    }
  });
}
