import type { Hono } from 'hono';
import { z } from 'zod';
import type { Agent } from '../../agent/agent.js';
import type { DataPort } from '../../contract/data.js';
import { FEEDBACK_COMMENT_MAX, type FeedbackVote } from '../../contract/feedback.js';
import type { Logger } from '../../telemetry/logger.js';
import { anonymousUserId, chosenTenant } from './chat-request.js';
import { errorBody } from './error-body.js';

const feedbackBody = z.strictObject({
  turnId: z.uuid(),
  value: z.enum(['up', 'down']),
  /** A thumbs-down's comment (ignored with a thumbs-up). */
  comment: z.string().max(FEEDBACK_COMMENT_MAX).optional(),
  /** A token caller's own user (as in `POST /api/chat`); ignored for an anonymous caller. */
  userId: z.string().trim().min(1).max(200).optional(),
  tenant: z.string().trim().min(1).max(100).optional(),
});

const STATUS = { bad_request: 400, tenant_not_configured: 403, unknown_turn: 404 } as const;

/**
 * `POST /api/feedback` (issue 47), behind the `/api/*` guard: `{ "turnId", "value": "up" | "down",
 * "comment"? }` records the caller's vote on one answer of its tenant (`turnId` from `/api/chat`'s
 * JSON or its SSE `done` event). The voter is the caller as `/api/chat` knows it (a token caller's
 * `userId`, an anonymous caller's address): one vote per voter per answer, a second replaces the
 * first, and sending the same vote again changes nothing (`changed: false`). `404` for an answer
 * the tenant does not have (another tenant's, or past the turn record's retention).
 */
export function mountFeedback(app: Hono, opts: { agent: Agent; log: Logger; data: DataPort | undefined }): void {
  const { agent, log, data } = opts;
  app.post('/api/feedback', async (c) => {
    const parsed = feedbackBody.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success)
      return c.json(
        errorBody(
          'bad_request',
          `The body must be { "turnId": "<the answer's turnId>", "value": "up" | "down", "comment"?: "…" } (a comment of at most ${FEEDBACK_COMMENT_MAX} characters).`,
        ),
        400,
      );
    const body = parsed.data;
    const caller = c.get('caller');
    const chosen = await chosenTenant(caller, body.tenant, data, log);
    if (!chosen.ok) return c.json(errorBody(chosen.code, chosen.message), chosen.status);
    const vote: FeedbackVote = {
      voter: {
        platform: 'http',
        workspaceId: 'default',
        ...(chosen.slug !== undefined ? { tenant: chosen.slug } : {}),
        userId: caller.kind === 'anonymous' ? anonymousUserId(caller.address) : (body.userId ?? 'api'),
      },
      turnId: body.turnId,
      value: body.value,
      ...(body.comment?.trim() ? { comment: body.comment } : {}),
    };
    const result = await agent.feedback(vote);
    if (!result.ok) return c.json(errorBody(result.code, result.message), STATUS[result.code]);
    return c.json({
      turnId: body.turnId.toLowerCase(),
      value: result.value,
      previous: result.previous,
      changed: result.changed,
    });
  });
}
