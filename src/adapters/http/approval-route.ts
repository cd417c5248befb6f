import type { Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { Agent } from '../../agent/agent.js';
import type { DataPort } from '../../contract/data.js';
import { createApprovalStore, type ApprovalRow, type ApprovalStore } from '../../data/approvals.js';
import { isAdminPort } from '../../data/rpc-port.js';
import type { KvStore } from '../../state/kv.js';
import type { Logger } from '../../telemetry/logger.js';
import type { Caller } from './access.js';
import { readOutcome, rememberOutcome, type ApprovalOutcome } from './approval-outcomes.js';
import { anonymousUserId, chatMessage, chosenTenant } from './chat-request.js';
import { apiBlocks, jsonTurn, streamTurn } from './chat-response.js';
import { errorBody } from './error-body.js';

const decisionBody = z.strictObject({
  decision: z.enum(['approve', 'deny']),
  /** A token caller's own user (as in `POST /api/chat`); ignored for an anonymous caller. */
  userId: z.string().trim().min(1).max(200).optional(),
  tenant: z.string().trim().min(1).max(100).optional(),
});

/** How often a waiting `GET /api/approvals/{id}` stream looks at the approval, and says it is alive. */
const POLL_MS = 500;
const KEEPALIVE_MS = 15_000;
/** A waiting stream gives up this long after the approval's expiry (the sweep runs well within it). */
const WAIT_PAST_EXPIRY_MS = 10 * 60_000;
/** How long a waiting stream waits for a decided approval's turn to answer. */
const OUTCOME_WAIT_MS = 60_000;

/**
 * The HTTP approval routes (issue 43), behind the `/api/*` guard:
 *
 * - `POST /api/approvals/{id}` `{ "decision": "approve" | "deny" }`: the caller's own credential
 *   decides, as the same user who may approve in chat (the asker, or the tenant's named approvers).
 *   The decision is a turn in the approval's thread; its answer is that turn's (JSON, or SSE with
 *   `Accept: text/event-stream`). An approval that expired answers `410` with
 *   `{ error: { code: "approval_expired" }, approval, threadId, response }` (`response`: the turn's
 *   final answer after the expiry, once there is one), and runs nothing.
 * - `GET /api/approvals/{id}` (`?userId=` for a token caller, as in chat): JSON, the approval's
 *   state (`200`; `410` as above once expired) with the turn's final answer once decided; SSE, a
 *   stream that waits for the decision (a POST on any replica, or the expiry sweep) and then sends
 *   `approval_decided` ({ outcome, at }), `reply` and `done`.
 */
export function mountApprovals(
  app: Hono,
  opts: { agent: Agent; log: Logger; data: DataPort | undefined; kv?: KvStore | undefined },
): void {
  const { agent, log, data, kv } = opts;

  /** The caller's tenant and the HTTP approval `id` in it, or the error response. */
  async function found(
    c: Context,
    named: string | undefined,
  ): Promise<{ row: ApprovalRow; store: ApprovalStore; slug: string | undefined; tenantId: string } | Response> {
    if (!data || !isAdminPort(data))
      return c.json(errorBody('not_found', 'Approvals need a database; this server has none.'), 404);
    const chosen = await chosenTenant(c.get('caller'), named, data, log);
    if (!chosen.ok) return c.json(errorBody(chosen.code, chosen.message), chosen.status);
    const tenant = chosen.slug ? await data.tenantBySlug(chosen.slug) : await data.defaultTenant();
    const id = c.req.param('id') ?? '';
    const store = createApprovalStore(data);
    const row = tenant ? await store.get(tenant.id, id) : undefined;
    if (!tenant || !row || row.platform !== 'http') return c.json(errorBody('not_found', `No approval ${id}.`), 404);
    return { row, store, slug: chosen.slug, tenantId: tenant.id };
  }

  app.post('/api/approvals/:id', async (c) => {
    const parsed = decisionBody.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success)
      return c.json(errorBody('bad_request', 'The body must be { "decision": "approve" | "deny" }.'), 400);
    const hit = await found(c, parsed.data.tenant);
    if (hit instanceof Response) return hit;
    const { row } = hit;
    // Expired (by the sweep, or an earlier decision that came too late): nothing to decide.
    if (row.state === 'expired') return expired(c, row, kv && (await readOutcome(kv, row.step_id)));
    const message = chatMessage(
      {
        message: '',
        action: { id: `approval.${parsed.data.decision}`, value: row.id },
        ...(parsed.data.userId ? { userId: parsed.data.userId } : {}),
      },
      c.get('caller'),
      row.thread_id,
      hit.slug,
    );
    const run = (signal: AbortSignal | undefined) =>
      rememberOutcome(kv, row.step_id, agent.handle(message, signal), log);
    if (c.req.header('accept')?.includes('text/event-stream'))
      return streamTurn(
        c,
        row.thread_id,
        (signal) => run(signal).events,
        () => {},
        log,
      );
    const kept = run(c.req.raw.signal);
    const res = await jsonTurn(c, row.thread_id, kept.events, () => {}, log);
    // Came too late: this decision expired the approval (the sweep had not yet); its answer is the turn's.
    const outcome = kept.outcome();
    if (outcome?.outcome === 'expired')
      return expired(c, { ...row, state: 'expired', decided_at: outcome.at }, outcome);
    return res;
  });

  app.get('/api/approvals/:id', async (c) => {
    const hit = await found(c, c.req.query('tenant'));
    if (hit instanceof Response) return hit;
    const { row, store, tenantId } = hit;
    // The thread's asker or a named approver, as the caller names itself in chat; anyone else learns nothing.
    if (!mayRead(row, c.get('caller'), c.req.query('userId')))
      return c.json(errorBody('not_found', `No approval ${row.id}.`), 404);
    if (!c.req.header('accept')?.includes('text/event-stream')) {
      const outcome = kv && row.state !== 'pending' ? await readOutcome(kv, row.step_id) : undefined;
      if (row.state === 'expired') return expired(c, row, outcome);
      return c.json({ threadId: row.thread_id, approval: approvalJson(row), ...answerJson(outcome) });
    }
    return streamSSE(c, async (stream) => {
      let gone = false;
      stream.onAbort(() => void (gone = true));
      await stream.writeSSE({ event: 'approval', data: JSON.stringify(approvalJson(row)) });
      const giveUpAt = Date.parse(row.expires_at) + WAIT_PAST_EXPIRY_MS;
      let lastWrite = Date.now();
      let current = row;
      let outcome: ApprovalOutcome | undefined;
      let decidedSince: number | undefined;
      while (!gone && Date.now() < giveUpAt) {
        if (current.state !== 'pending') {
          // Decided: its turn's answer follows shortly (a turn that failed leaves none: the outcome alone then).
          decidedSince ??= Date.now();
          if (kv) outcome = await readOutcome(kv, row.step_id).catch(() => undefined);
          if (outcome || !kv || Date.now() - decidedSince > OUTCOME_WAIT_MS) break;
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        // The database away for a moment: the stream keeps waiting, as the approval does.
        current =
          (await store.get(tenantId, row.id).catch((err: unknown) => {
            log.debug({ err, approvalId: row.id }, 'could not read a waited-for approval; trying again');
            return undefined;
          })) ?? current;
        if (Date.now() - lastWrite > KEEPALIVE_MS) {
          await stream.write(': waiting\n\n');
          lastWrite = Date.now();
        }
      }
      if (gone) return;
      if (!outcome && current.state === 'pending') {
        await stream.writeSSE({
          event: 'error',
          data: JSON.stringify({ code: 'unavailable', message: 'The approval was not decided in time; ask again.' }),
        });
        return;
      }
      const at = outcome?.at ?? current.decided_at ?? new Date().toISOString();
      await stream.writeSSE({
        event: 'approval_decided',
        data: JSON.stringify({ outcome: outcome?.outcome ?? current.state, at }),
      });
      if (outcome) {
        await stream.writeSSE({
          event: 'reply',
          data: JSON.stringify({ text: outcome.response, blocks: apiBlocks(outcome.blocks) }),
        });
        await stream.writeSSE({ event: 'done', data: JSON.stringify({ toolCalls: outcome.toolCalls }) });
      }
    });
  });
}

/** The approval as the API shows it. */
function approvalJson(row: ApprovalRow) {
  return {
    id: row.id,
    tool: row.tool,
    arguments: row.arguments,
    state: row.state,
    expiresAt: row.expires_at,
    ...(row.decided_at ? { decidedAt: row.decided_at } : {}),
  };
}

/** The turn's final answer after the decision, once there is one. */
function answerJson(outcome: ApprovalOutcome | undefined) {
  if (!outcome) return {};
  return {
    response: outcome.response,
    blocks: apiBlocks(outcome.blocks),
    toolCalls: outcome.toolCalls,
  };
}

/** `410 Gone`: the approval expired; nothing was run. The turn's final answer rides along once known. */
function expired(c: Context, row: ApprovalRow, outcome: ApprovalOutcome | undefined): Response {
  const at = (outcome?.at ?? row.decided_at ?? row.expires_at).slice(11, 16);
  return c.json(
    {
      ...errorBody('approval_expired', `This approval expired at ${at} UTC; the call was not run.`),
      threadId: row.thread_id,
      approval: approvalJson(row),
      ...answerJson(outcome),
    },
    410,
  );
}

/** The asker, or a named approver, as the caller names itself (an anonymous caller by its address). */
function mayRead(row: ApprovalRow, caller: Caller, userId: string | undefined): boolean {
  const who = caller.kind === 'anonymous' ? anonymousUserId(caller.address) : (userId ?? 'api');
  const named = (row.approvers as { users?: unknown }).users;
  return who === row.asker_id || (Array.isArray(named) && named.includes(who));
}
