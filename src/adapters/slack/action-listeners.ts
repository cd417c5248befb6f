import type { BlockAction, Middleware, SlackActionMiddlewareArgs } from '@slack/bolt';
import { INBOX_UNAVAILABLE_TEXT as UNAVAILABLE, THREAD_QUEUE_FULL_TEXT, type AddResult } from '../../inbox/index.js';
import { authOf, slackContext } from './bolt-context.js';
import { recordWork, type HandlerDeps } from './handler-deps.js';
import { normalizeAction } from './normalize.js';
import { respondVia } from './notices.js';

/**
 * A button click (`block_actions`): recorded in the inbox as a turn of the message's thread,
 * ordered by the click's `action_ts`, then acked. A failed record or a full queue is told to the
 * clicker privately, through the click's response_url.
 */
export function blockActionsListener(deps: HandlerDeps): Middleware<SlackActionMiddlewareArgs<BlockAction>> {
  const { state, log, inbox } = deps;
  return async ({ ack, body, context }) => {
    const n = normalizeAction(body, slackContext(context));
    if (!n) return ack();
    const { message } = n;
    const responseUrl = (body as { response_url?: string }).response_url;
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
