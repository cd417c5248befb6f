import type {
  AllMiddlewareArgs,
  BlockAction,
  Middleware,
  SlackActionMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';
import {
  feedbackThanks,
  isTurnId,
  parseFeedbackValue,
  type FeedbackVote,
  type FeedbackVoter,
} from '../../contract/feedback.js';
import { INBOX_UNAVAILABLE_TEXT as UNAVAILABLE, type AddResult, type Delivery } from '../../inbox/index.js';
import { authOf, slackContext } from './bolt-context.js';
import { COMMENT_INPUT, feedbackCommentView } from './feedback-blocks.js';
import { recordWork, type HandlerDeps, type SlackWork } from './handler-deps.js';
import type { normalizeAction } from './normalize.js';
import { workspaceOf } from './normalize.js';
import { respondVia } from './notices.js';
import { slackErrorCode } from './slack-errors.js';

/**
 * Feedback on answers in Slack (issue 47). A click on the feedback_buttons under an answer is
 * recorded in the inbox like any click (its dedup key is the click's trigger_id, so a retried
 * delivery counts once), then acked; a thumbs-down then opens the comment modal with the click's
 * trigger_id (valid 3 s, so here, not in the queued run). The modal's submission is recorded the
 * same way (dedup key: the view's id). Both are ordered in a queue of their own per answer and
 * person, never behind a turn running in the thread. The inbox run records the vote through the
 * core (`agent.feedback`) and thanks the clicker privately.
 */

type FeedbackWork = Extract<SlackWork, { kind: 'feedback' }>;

/** The queue of one person's votes on one answer (their order: a changed vote ends last). */
const voteQueue = (turnId: string, userId: string) => `feedback:${turnId}:${userId}`;

/** A click on the feedback buttons, normalized by `normalizeAction`: recorded, acked, and a thumbs-down's modal opened. */
export async function feedbackClick(
  deps: HandlerDeps,
  args: SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs,
  n: NonNullable<ReturnType<typeof normalizeAction>>,
): Promise<void> {
  const { ack, body, context, client } = args;
  const { log } = deps;
  const parsed = parseFeedbackValue(n.message.action?.value);
  const responseUrl = (body as { response_url?: string }).response_url;
  if (!parsed) {
    await ack();
    log.debug({ value: n.message.action?.value?.slice(0, 80) }, 'slack feedback click without a turn; ignored');
    return;
  }
  const voter: FeedbackVoter = {
    platform: 'slack',
    workspaceId: n.message.workspaceId,
    ...(n.message.orgId ? { orgId: n.message.orgId } : {}),
    userId: n.message.userId,
  };
  const actionTs = (body as { actions?: { action_ts?: unknown }[] }).actions?.[0]?.action_ts;
  let added: AddResult;
  try {
    added = await recordWork(
      deps.inbox,
      n.dedupKey,
      voteQueue(parsed.turnId, voter.userId),
      {
        kind: 'feedback',
        vote: { voter, turnId: parsed.turnId, value: parsed.value },
        ...(responseUrl ? { responseUrl } : {}),
        auth: authOf(context),
      },
      typeof actionTs === 'string' ? actionTs : undefined,
    );
  } catch (err) {
    log.error({ err }, 'slack feedback click not recorded');
    await ack();
    if (responseUrl) void respondVia(responseUrl, log)(UNAVAILABLE);
    return;
  }
  await ack();
  if (added !== 'added' || parsed.value !== 'down' || !body.trigger_id) return;
  try {
    await client.views.open({ trigger_id: body.trigger_id, view: feedbackCommentView(parsed.turnId) });
  } catch (err) {
    // The vote stands; only the chance to comment is lost (the trigger expired: the click waited too long).
    log.warn({ code: slackErrorCode(err) }, 'slack feedback comment modal not opened');
    if (responseUrl) void respondVia(responseUrl, log)(feedbackThanks('down', true));
  }
}

/** The comment modal's submission: recorded in the inbox (then acked, which closes the modal). */
export function feedbackSubmissionListener(deps: HandlerDeps): Middleware<SlackViewMiddlewareArgs<ViewSubmitAction>> {
  const { log } = deps;
  return async ({ ack, body, context }) => {
    const turnId = body.view.private_metadata;
    const comment = body.view.state.values[COMMENT_INPUT]?.[COMMENT_INPUT]?.value?.trim() ?? '';
    // Nothing to add to the vote the click recorded.
    if (!isTurnId(turnId) || !comment) return void (await ack());
    const ctx = slackContext(context);
    const workspaceId = body.team?.id ?? body.user.team_id ?? workspaceOf(ctx);
    const org = body.enterprise?.id ?? ctx.enterpriseId;
    const voter: FeedbackVoter = {
      platform: 'slack',
      workspaceId,
      ...(org && org !== workspaceId ? { orgId: org } : {}),
      userId: body.user.id,
    };
    const vote: FeedbackVote = { voter, turnId: turnId.toLowerCase(), value: 'down', comment };
    try {
      await recordWork(deps.inbox, `feedback-comment:${body.view.id}`, voteQueue(vote.turnId, voter.userId), {
        kind: 'feedback',
        vote,
        auth: authOf(context),
      });
    } catch (err) {
      log.error({ err }, 'slack feedback comment not recorded');
      // The modal stays open with the reason, so the comment is not lost: the person can send it again.
      await ack({ response_action: 'errors', errors: { [COMMENT_INPUT]: UNAVAILABLE } });
      return;
    }
    await ack();
  };
}

/** The inbox run of a vote: recorded through the core, then the clicker is thanked (or told why not) privately. */
export async function deliverFeedback(d: Delivery<SlackWork>, work: FeedbackWork, deps: HandlerDeps): Promise<void> {
  const result = await deps.agent.feedback(work.vote);
  // A replay of an entry whose note went out already says nothing twice.
  if (!work.responseUrl || d.recorded.includes('told')) return;
  const respond = respondVia(work.responseUrl, deps.log);
  // A thumbs-down's thanks is its modal; a comment has no response_url.
  if (result.ok && result.value === 'down' && result.changed) return;
  await respond(result.ok ? feedbackThanks(result.value, result.changed) : result.message);
  await d.record('told').catch(() => undefined);
}
