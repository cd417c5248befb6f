import { Assistant, type App } from '@slack/bolt';
import { acknowledgeTheRest, blockActionsListener } from './action-listeners.js';
import { ANY_SLASH_COMMAND, commandListener } from './command-listeners.js';
import { deliverSlackWork } from './delivery.js';
import { feedbackSubmissionListener } from './feedback.js';
import { FEEDBACK_VIEW } from './feedback-blocks.js';
import type { HandlerDeps, SlackWork } from './handler-deps.js';
import { appUninstalled, assistantThreadStarted, tokensRevoked } from './lifecycle-listeners.js';
import { agentMessagesOpened } from './agent-view.js';
import { messageListeners } from './message-listeners.js';
import { slackErrorCode } from './slack-errors.js';
import { createOutageNotice } from '../../telemetry/outage-notice.js';

/**
 * Every Slack entry point, and the file that handles it: messages (mentions, channel-thread
 * follow-ups, DMs, AI-app threads) in `message-listeners.ts`, slash commands in
 * `command-listeners.ts`, button clicks (and an ack for every interaction we do not handle) in `action-listeners.ts`, a new AI-app thread and the
 * app leaving a workspace in `lifecycle-listeners.ts` (the Home tab: `app-home.ts`).
 *
 * Each is normalized, filtered and recorded in the inbox before it is acked: over HTTP Bolt
 * answers Slack only once the listener returns (processBeforeResponse), so a failed write is a
 * 500 that Slack retries. The inbox then runs `deliverSlackWork` (`delivery.ts`), once the
 * returned function has registered it (when the adapter has started).
 */
export function registerHandlers(app: App, deps: HandlerDeps): () => void {
  const messages = messageListeners(deps);
  app.assistant(new Assistant({ threadStarted: assistantThreadStarted(deps), userMessage: messages.assistantMessage }));
  app.event('app_mention', messages.mention);
  app.event('message', messages.message);
  app.command(ANY_SLASH_COMMAND, commandListener(deps));
  app.action({ type: 'block_actions' }, blockActionsListener(deps));
  app.view({ type: 'view_submission', callback_id: FEEDBACK_VIEW }, feedbackSubmissionListener(deps));
  acknowledgeTheRest(app, deps.log);
  app.event('app_uninstalled', appUninstalled(deps));
  app.event('tokens_revoked', tokensRevoked(deps));
  // `agent_view` apps: the Messages tab opened starts the conversation (the Home tab has its own listener, app-home.ts).
  app.event('app_home_opened', agentMessagesOpened(deps));

  // An inbox that cannot record events is told once per outage (each refused event at debug), and
  // its end once: at the first request whose listeners all got through after it.
  const intake = createOutageNotice(deps.log, 'Slack events are recorded again');
  app.use(async ({ next }) => {
    await next();
    intake.ok();
  });
  app.error(async (error) => {
    const original = (error as { original?: unknown }).original ?? error;
    const unrecorded = original instanceof Error && original.name === 'InboxUnavailableError';
    if (unrecorded)
      intake.failed(
        { code: slackErrorCode(original), err: original },
        'slack events cannot be recorded: each is answered 500 and Slack sends it again',
      );
    else deps.log.error({ code: slackErrorCode(original), err: original }, 'slack listener failed');
    // Not recorded: fail the request, so Slack retries it (over HTTP a 500; nothing was acked).
    if (unrecorded) throw original;
  });

  return () => deps.inbox.deliver<SlackWork>('slack', (d) => deliverSlackWork(d, deps));
}
