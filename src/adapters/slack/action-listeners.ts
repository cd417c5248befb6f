import type { App, BlockAction, Middleware, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { Logger } from '../../telemetry/logger.js';
import { INBOX_UNAVAILABLE_TEXT as UNAVAILABLE, THREAD_QUEUE_FULL_TEXT, type AddResult } from '../../inbox/index.js';
import { authOf, slackContext } from './bolt-context.js';
import { recordWork, type HandlerDeps } from './handler-deps.js';
import { normalizeAction } from './normalize.js';
import { respondVia } from './notices.js';
import { FEEDBACK_ACTION } from '../../contract/feedback.js';
import { feedbackClick } from './feedback.js';
import { FEEDBACK_VIEW } from './feedback-blocks.js';

/**
 * A button click (`block_actions`): recorded in the inbox as a turn of the message's thread,
 * ordered by the click's `action_ts`, then acked. A failed record or a full queue is told to the
 * clicker privately, through the click's response_url.
 */
export function blockActionsListener(deps: HandlerDeps): Middleware<SlackActionMiddlewareArgs<BlockAction>> {
  const { state, log, inbox } = deps;
  return async (args) => {
    const { ack, body, context } = args;
    const n = normalizeAction(body, slackContext(context));
    if (!n) return ack();
    const { message } = n;
    // A vote on an answer (issue 47): recorded like any click, answered by the core's feedback, not a turn.
    if (message.action?.id === FEEDBACK_ACTION) return feedbackClick(deps, args, n);
    const responseUrl = (body as { response_url?: string }).response_url;
    // A control we did not make (another app's, or one a workspace admin added): nothing to run, said privately.
    if (message.action && !deps.agent.handlesAction(message.action.id)) {
      await ack();
      const type = (body as { actions?: { type?: unknown }[] }).actions?.[0]?.type;
      log.debug({ actionId: message.action.id, type }, 'slack click on a control that is not ours');
      if (responseUrl) void respondVia(responseUrl, log)(foreignControlText(typeof type === 'string' ? type : ''));
      return;
    }
    let added: AddResult;
    try {
      const actionTs = (body as { actions?: { action_ts?: unknown }[] }).actions?.[0]?.action_ts;
      added = await recordWork(
        inbox,
        n.dedupKey,
        `${message.workspaceId}:${message.channelId}:${message.threadId}`,
        {
          kind: 'action',
          message,
          userTeamId: n.userTeamId,
          responseUrl,
          ...(n.ephemeral ? { ephemeral: true } : {}),
          auth: authOf(context),
        },
        typeof actionTs === 'string' ? actionTs : undefined,
      );
    } catch (err) {
      log.error({ err }, 'slack button click not recorded');
      await ack();
      if (responseUrl) void respondVia(responseUrl, log)(UNAVAILABLE);
      return;
    }
    await ack();
    if (added === 'full' && responseUrl) void respondVia(responseUrl, log)(THREAD_QUEUE_FULL_TEXT(deps.maxPerThread));
    else if (added === 'added' && !message.isDirect)
      void state.follow(message.workspaceId, message.channelId, message.threadId);
  };
}

/** The private note for a click on a control we did not make, naming the kind of control. */
export function foreignControlText(type: string): string {
  return `That ${controlKind(type)} isn’t one of mine.`;
}

/** Slack's element `type` as a person calls it. */
function controlKind(type: string): string {
  if (type.endsWith('_select')) return 'select menu';
  if (type === 'radio_buttons') return 'radio button';
  if (type === 'checkboxes') return 'checkbox';
  if (type === 'overflow') return 'overflow menu';
  if (type === 'datepicker' || type === 'datetimepicker') return 'date picker';
  if (type === 'timepicker') return 'time picker';
  return 'button';
}

/**
 * The interactions we offer no listener for (a modal submitted or closed, a global or message
 * shortcut, a select menu's options request): acknowledged at once with one debug line, so Slack
 * never shows its user an error after Bolt's 3 s wait. An options request gets no options.
 */
export function acknowledgeTheRest(app: App, log: Logger): void {
  const any = /.*/;
  // Every submission but the feedback comment's (issue 47: `feedback.ts` records it).
  const notFeedback = new RegExp(`^(?!${FEEDBACK_VIEW.replace('.', '\\.')}$)`);
  app.view({ type: 'view_submission', callback_id: notFeedback }, async ({ ack, body }) => {
    await ack();
    log.debug({ callbackId: body.view.callback_id }, 'slack view submission acknowledged; nothing handles it');
  });
  app.view({ type: 'view_closed', callback_id: any }, async ({ ack, body }) => {
    await ack();
    log.debug({ callbackId: body.view.callback_id }, 'slack view closed acknowledged; nothing handles it');
  });
  app.shortcut(any, async ({ ack, body }) => {
    await ack();
    log.debug({ callbackId: body.callback_id, type: body.type }, 'slack shortcut acknowledged; nothing handles it');
  });
  app.options(any, async ({ ack, body }) => {
    await ack({ options: [] });
    log.debug({ type: body.type }, 'slack options request answered with none; nothing handles it');
  });
}
