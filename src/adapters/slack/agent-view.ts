import type { Middleware, SlackEventMiddlewareArgs } from '@slack/bolt';
import { greetingMessage, SUGGESTED_PROMPTS, SUGGESTED_PROMPTS_TITLE } from './assistant-copy.js';
import type { HandlerDeps } from './handler-deps.js';
import { slackErrorCode } from './slack-errors.js';

/**
 * Slack's Agent messaging experience (`agent_view` in the manifest): a person opening the app's
 * Messages tab sends `app_home_opened` with `tab: "messages"`, in place of `assistant_thread_started`.
 * The conversation starts as an AI-app thread did: a greeting (the first time the person opens
 * it) and the suggested prompts (set for the DM: with `agent_view` they take no thread_ts). The
 * status shows on each turn as before (the turn writer's assistant.threads.setStatus). Apps still
 * on `assistant_view` get `assistant_thread_started` and are served by `assistantThreadStarted`.
 * No turn runs: nothing is recorded in the inbox.
 */
export function agentMessagesOpened(deps: HandlerDeps): Middleware<SlackEventMiddlewareArgs<'app_home_opened'>> {
  const { state, log } = deps;
  return async ({ event, body, client }) => {
    if (event.tab !== 'messages' || !event.channel) return;
    const eventId = (body as { event_id?: unknown }).event_id;
    const key = typeof eventId === 'string' ? `event:${eventId}` : `opened:${event.channel}:${event.event_ts}`;
    if (!(await state.firstTime([key]))) return;
    const channel = event.channel;
    // Not awaited: Slack's ack must not wait for Web API calls.
    void (async () => {
      try {
        if (await state.firstInThread(channel, 'agent-view-greeting'))
          await client.chat.postMessage({ channel, ...greetingMessage(event.user) });
        // The Web API types still require thread_ts; with agent_view Slack refuses (silently) a call that has one.
        await client.assistant.threads.setSuggestedPrompts({
          channel_id: channel,
          prompts: SUGGESTED_PROMPTS.slice(0, 4),
          title: SUGGESTED_PROMPTS_TITLE,
        } as Parameters<typeof client.assistant.threads.setSuggestedPrompts>[0]);
        log.debug({ channel }, 'slack agent messages tab opened: prompts set');
      } catch (err) {
        const code = slackErrorCode(err);
        log.warn({ code, channel }, `slack agent greeting failed: ${code}`);
      }
    })();
  };
}
