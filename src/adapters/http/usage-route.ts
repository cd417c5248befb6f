import type { Hono } from 'hono';
import { z } from 'zod';
import type { DataPort } from '../../contract/data.js';
import { unauthorized } from './access.js';
import { errorBody } from './error-body.js';

const usageQuery = z
  .object({
    tenant: z.string().trim().min(1).max(200).optional(),
    threadId: z.string().trim().min(1).max(200).optional(),
    userId: z.string().trim().min(1).max(200).optional(),
    from: z.iso
      .date()
      .or(z.iso.datetime({ offset: true }))
      .optional(),
    to: z.iso
      .date()
      .or(z.iso.datetime({ offset: true }))
      .optional(),
  })
  .strict();

/**
 * `GET /api/usage`: token totals from the ledger, `?tenant=&threadId=&userId=&from=&to=` (default:
 * the last 30 days). Behind the `/api/*` guard (api-caller.ts), and for token holders only.
 */
export function mountUsage(app: Hono, data: DataPort | undefined): void {
  app.get('/api/usage', async (c) => {
    // Every tenant's spend: for token holders only, never for an anonymous (loopback) caller.
    const caller = c.get('caller');
    if (caller.kind !== 'token')
      return unauthorized(
        c,
        'GET /api/usage needs API_TOKEN or a tenant token: send Authorization: Bearer <token> (on this machine, npm run usage prints the same totals).',
      );
    if (!data) return c.json(errorBody('not_found', 'Usage is not available here.'), 404);
    const parsed = usageQuery.safeParse(c.req.query());
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return c.json(
        errorBody('bad_request', `${issue?.path.join('.') || 'query'}: ${issue?.message ?? 'invalid'}`),
        400,
      );
    }
    const q = { ...parsed.data, tenant: parsed.data.tenant ?? caller.tenant ?? 'default' };
    // A tenant's token sees its own tenant's figures only; API_TOKEN is the operator's, as before.
    if (caller.tenant !== undefined && q.tenant !== caller.tenant)
      return c.json(
        errorBody('forbidden', `This token belongs to tenant "${caller.tenant}"; it cannot read another's usage.`),
        403,
      );
    const to = q.to ? new Date(q.to.length === 10 ? Date.parse(q.to) + 86_400_000 : Date.parse(q.to)) : new Date();
    const from = q.from ? new Date(q.from) : new Date(to.getTime() - 30 * 86_400_000);
    if (from >= to) return c.json(errorBody('bad_request', 'from must be before to.'), 400);
    const totals = await data.usageTotals({
      tenant: q.tenant,
      from,
      to,
      ...(q.userId ? { userId: q.userId } : {}),
      ...(q.threadId ? { threadId: q.threadId } : {}),
    });
    if (!totals) return c.json(errorBody('not_found', `No tenant "${q.tenant}".`), 404);
    return c.json({
      tenant: q.tenant,
      from: from.toISOString(),
      to: to.toISOString(),
      ...(q.userId ? { userId: q.userId } : {}),
      ...(q.threadId ? { threadId: q.threadId } : {}),
      ...totals,
    });
  });
}
