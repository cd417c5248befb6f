import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { DataError, type DataPort } from '../../contract/data.js';
import { memoryForgetRow, memoryListRow } from '../../data/rows.js';
import type { Logger } from '../../telemetry/logger.js';
import { unauthorized } from './access.js';
import { chosenTenant } from './chat-request.js';
import { errorBody } from './error-body.js';

const memoryQuery = z.strictObject({
  /** The token's backend names its users as in `POST /api/chat` (default `api`). */
  userId: z.string().trim().min(1).max(200).optional(),
  tenant: z.string().trim().min(1).max(100).optional(),
});

/**
 * `GET /api/memory` and `DELETE /api/memory/{id}` (issue 45), behind the `/api/*` guard: what the
 * bot remembers for the caller in the token's tenant, as `POST /api/chat` sees it (the caller's own
 * notes, `?userId=` as in chat, default `api`; the API's channel's; the team's), each with its
 * `id`, scope and text; and forgetting one the caller may forget. An anonymous caller (no token:
 * known only by its address) keeps no notes and is refused, so one address never reads another's.
 */
export function mountMemory(app: Hono, opts: { data: DataPort | undefined; log: Logger }): void {
  const { data, log } = opts;

  const who = async (c: Context) => {
    const caller = c.get('caller');
    if (caller.kind !== 'token')
      return {
        refusal: unauthorized(
          c,
          'Memory is kept for callers with a token: send Authorization: Bearer <API_TOKEN or a tenant token>.',
        ),
      };
    if (!data)
      return { refusal: c.json(errorBody('not_found', 'Memory needs a database; this server has none.'), 404) };
    const parsed = memoryQuery.safeParse(c.req.query());
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return {
        refusal: c.json(
          errorBody('bad_request', `${issue?.path.join('.') || 'query'}: ${issue?.message ?? 'invalid'}`),
          400,
        ),
      };
    }
    const chosen = await chosenTenant(caller, parsed.data.tenant, data, log);
    if (!chosen.ok) return { refusal: c.json(errorBody(chosen.code, chosen.message), chosen.status) };
    const tenant = chosen.slug ? await data.tenantBySlug(chosen.slug) : await data.defaultTenant();
    if (!tenant) return { refusal: c.json(errorBody('not_found', 'No such tenant.'), 404) };
    // The same identity as the caller's chat turns (chat-request.ts): platform http, channel `api`, a member.
    const identity = { platform: 'http', user_id: parsed.data.userId ?? 'api', channel_id: 'api', member: true };
    return { port: data.forTenant(tenant), identity };
  };

  const failed = (c: Context, err: unknown) => {
    log.warn({ err, code: err instanceof DataError ? err.code : undefined }, 'memory request failed');
    return c.json(errorBody('unavailable', 'Memory could not be read just now. Try again shortly.'), 503);
  };

  app.get('/api/memory', async (c) => {
    const got = await who(c);
    if ('refusal' in got) return got.refusal;
    try {
      const rows = await got.port.call('memory_list', { ...got.identity, limit: 500 }, memoryListRow);
      return c.json({
        memories: rows.map((r) => ({
          id: r.id,
          scope: r.scope,
          text: r.text,
          everywhere: r.everywhere,
          createdAt: r.created_at,
          expiresAt: r.expires_at,
        })),
      });
    } catch (err) {
      return failed(c, err);
    }
  });

  app.delete('/api/memory/:id', async (c) => {
    const got = await who(c);
    if ('refusal' in got) return got.refusal;
    const id = c.req.param('id');
    if (!z.uuid().safeParse(id).success) return c.json(errorBody('not_found', `No note ${id}.`), 404);
    try {
      const [row] = await got.port.call('memory_forget', { ...got.identity, id }, memoryForgetRow);
      if (row?.status === 'forgotten') return c.json({ forgotten: true, id, scope: row.scope });
      if (row?.status === 'not_allowed')
        return c.json(
          errorBody('forbidden', 'Only the note’s owner (or a member, for team and channel notes) can forget it.'),
          403,
        );
      return c.json(errorBody('not_found', `No note ${id}.`), 404);
    } catch (err) {
      return failed(c, err);
    }
  });
}
