import type { Hono } from 'hono';
import { html } from 'hono/html';
import { draftEvalCase, renderEvalCaseDraft } from '../../../../contract/eval-draft.js';
import { isTurnId } from '../../../../contract/feedback.js';
import type { AdminDataPort } from '../../../../data/rpc-port.js';
import { feedbackListRow, feedbackOverviewRow } from '../../../../data/rows.js';
import type { ConsoleContext } from '../context.js';
import type { Html } from '../layout.js';
import { satisfactionSection, thumbsDownSection } from '../pages/feedback.js';
import { guarded } from './respond.js';

/** The newest thumbs-down votes the overview lists. */
const THUMBS_DOWN_SHOWN = 20;

/** With TRACE_URL_TEMPLATE: a trace's link. */
const traceUrlOf = (ctx: ConsoleContext) => {
  const template = ctx.deps.config.TRACE_URL_TEMPLATE;
  return template ? (id: string) => template.replaceAll('{trace_id}', encodeURIComponent(id)) : undefined;
};

/**
 * Feedback on answers (issue 47) on the overview: satisfaction in the period (per tenant, per
 * model, per tool family: the registry's tags, `toolFamily`) and the newest thumbs-down votes.
 */
export async function feedbackOnOverview(
  ctx: ConsoleContext,
  p: AdminDataPort,
  span: { from: string; to: string },
): Promise<Html> {
  const [overview, down] = await Promise.all([
    p.admin('feedback_overview', span, feedbackOverviewRow),
    p.admin('list_feedback', { value: 'down', limit: THUMBS_DOWN_SHOWN }, feedbackListRow),
  ]);
  const familyOf = ctx.deps.toolFamily ?? (() => undefined);
  return html`${satisfactionSection(overview, familyOf)}${thumbsDownSection(down, traceUrlOf(ctx))}`;
}

/**
 * `GET /admin/feedback/{turn}/eval-case`: a rated answer as a draft eval case (evals/; issue 47
 * item 4), downloaded as TypeScript to paste into its family's file: the tools that ran, the
 * comment as the expectation to write, and a placeholder for the question (the turn record keeps
 * no message text).
 */
export function mountFeedbackRoutes(app: Hono, ctx: ConsoleContext): void {
  app.get(
    '/admin/feedback/:turn/eval-case',
    guarded(ctx, 'overview', 'Eval case', async (c, p) => {
      const turnId = c.req.param('turn') ?? '';
      if (!isTurnId(turnId)) return c.text('No such answer.', 404);
      const [vote] = await p.admin('list_feedback', { value: 'down', turn_id: turnId, limit: 1 }, feedbackListRow);
      const [up] = vote
        ? []
        : await p.admin('list_feedback', { value: 'up', turn_id: turnId, limit: 1 }, feedbackListRow);
      const row = vote ?? up;
      if (!row) return c.text('No feedback on that answer (or its turn record is gone).', 404);
      const draft = draftEvalCase(
        {
          id: row.turn_id,
          tenant: row.tenant,
          at: row.turn_at,
          model: row.model,
          outcome: row.outcome,
          tools: row.tools,
          tokens: row.prompt_tokens + row.completion_tokens,
        },
        { value: row.value, comment: row.comment },
        { ...(ctx.deps.toolFamily ? { familyOf: ctx.deps.toolFamily } : {}) },
      );
      return c.body(renderEvalCaseDraft(draft), 200, {
        'content-type': 'text/plain; charset=utf-8',
        'content-disposition': `attachment; filename="feedback-${row.turn_id.slice(0, 8)}.ts"`,
      });
    }),
  );
}
