import type { Hono } from 'hono';
import { z } from 'zod';
import type { Agent } from '../../agent/agent.js';
import type { DataPort } from '../../contract/data.js';
import { createApprovalStore } from '../../data/approvals.js';
import { isAdminPort } from '../../data/rpc-port.js';
import type { Logger } from '../../telemetry/logger.js';
import { chatMessage, chosenTenant } from './chat-request.js';
import { jsonTurn, streamTurn } from './chat-response.js';
import { errorBody } from './error-body.js';

const decisionBody = z.strictObject({
  decision: z.enum(['approve', 'deny']),
  /** A token caller's own user (as in `POST /api/chat`); ignored for an anonymous caller. */
  userId: z.string().trim().min(1).max(200).optional(),
  tenant: z.string().trim().min(1).max(100).optional(),
});

/**
 * `POST /api/approvals/{id}` `{ "decision": "approve" | "deny" }` (issue 43), behind the `/api/*`
 * guard: the caller's own credential decides, as the same user who may approve in chat (the
 * asker, or the tenant's named approvers). The decision is a turn in the approval's thread; its
 * answer is that turn's (JSON, or SSE with `Accept: text/event-stream`).
 */
export function mountApprovals(app: Hono, opts: { agent: Agent; log: Logger; data: DataPort | undefined }): void {
  const { agent, log, data } = opts;
  app.post('/api/approvals/:id', async (c) => {
    const parsed = decisionBody.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success)
      return c.json(errorBody('bad_request', 'The body must be { "decision": "approve" | "deny" }.'), 400);
    if (!data || !isAdminPort(data))
      return c.json(errorBody('not_found', 'Approvals need a database; this server has none.'), 404);
    const caller = c.get('caller');
    const chosen = await chosenTenant(caller, parsed.data.tenant, data, log);
    if (!chosen.ok) return c.json(errorBody(chosen.code, chosen.message), chosen.status);
    const tenant = chosen.slug ? await data.tenantBySlug(chosen.slug) : await data.defaultTenant();
    const id = c.req.param('id');
    const row = tenant ? await createApprovalStore(data).get(tenant.id, id) : undefined;
    if (!row || row.platform !== 'http') return c.json(errorBody('not_found', `No approval ${id}.`), 404);
    const message = chatMessage(
      {
        message: '',
        action: { id: `approval.${parsed.data.decision}`, value: id },
        ...(parsed.data.userId ? { userId: parsed.data.userId } : {}),
      },
      caller,
      row.thread_id,
      chosen.slug,
    );
    if (c.req.header('accept')?.includes('text/event-stream'))
      return streamTurn(
        c,
        row.thread_id,
        (signal) => agent.handle(message, signal),
        () => {},
        log,
      );
    return jsonTurn(c, row.thread_id, agent.handle(message, c.req.raw.signal), () => {}, log);
  });
}
