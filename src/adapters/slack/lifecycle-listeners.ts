import type { AssistantThreadStartedMiddleware, Middleware, SlackEventMiddlewareArgs } from '@slack/bolt';
import { greetingMessage, SUGGESTED_PROMPTS, SUGGESTED_PROMPTS_TITLE } from './assistant-copy.js';
import { authOf } from './bolt-context.js';
import type { HandlerDeps } from './handler-deps.js';
import { slackErrorCode } from './slack-errors.js';

/**
 * A new AI-app (assistant) thread: a greeting and suggested prompts, once per thread even when
 * Slack retries the event. No turn runs: nothing is recorded in the inbox.
 */
export function assistantThreadStarted(deps: HandlerDeps): AssistantThreadStartedMiddleware {
  const { state, log } = deps;
  return async ({ event, body, say, setSuggestedPrompts }) => {
    const { channel_id, thread_ts } = event.assistant_thread;
    const key = typeof body.event_id === 'string' ? `event:${body.event_id}` : `started:${channel_id}:${thread_ts}`;
    if (!(await state.firstTime([key]))) return;
    try {
      await say(greetingMessage(event.assistant_thread.user_id));
      await setSuggestedPrompts({ prompts: SUGGESTED_PROMPTS.slice(0, 4), title: SUGGESTED_PROMPTS_TITLE });
    } catch (err) {
      const code = slackErrorCode(err);
      log.warn({ code, channel: channel_id }, `slack assistant greeting failed: ${code}`);
    }
  };
}

/** The app left a workspace: OAuth forgets the installation. */
export function appUninstalled(deps: HandlerDeps): Middleware<SlackEventMiddlewareArgs<'app_uninstalled'>> {
  return async ({ body, context }) => {
    const auth = authOf(context, body);
    deps.log.warn({ team: auth.teamId, enterprise: auth.enterpriseId }, 'slack app uninstalled from a workspace');
    await deps.uninstall?.(auth);
  };
}

/** The app lost its bot token in a workspace (a user token revoked alone changes nothing): as uninstalled. */
export function tokensRevoked(deps: HandlerDeps): Middleware<SlackEventMiddlewareArgs<'tokens_revoked'>> {
  return async ({ event, body, context }) => {
    if (!event.tokens.bot?.length) return;
    const auth = authOf(context, body);
    deps.log.warn({ team: auth.teamId, enterprise: auth.enterpriseId }, 'slack bot token revoked in a workspace');
    await deps.uninstall?.(auth);
  };
}
