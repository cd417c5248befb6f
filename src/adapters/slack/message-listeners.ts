import type {
  AssistantUserMessageMiddleware,
  Context,
  Middleware,
  SlackEventMiddlewareArgs,
  webApi,
} from '@slack/bolt';
import { MAX_MESSAGE_CHARS, messageTooLongText } from '../../contract/turn.js';
import { THREAD_QUEUE_FULL_TEXT } from '../../inbox/index.js';
import { authOf, slackContext, type EventBody } from './bolt-context.js';
import { recordWork, type HandlerDeps } from './handler-deps.js';
import { normalizeMessageEvent, type MessageDecision } from './normalize.js';
import { tellThread } from './notices.js';
import { noteUnanswered } from './thread-activity.js';

/** The listeners of everything a person writes: one handler behind three Bolt entry points. */
export interface MessageListeners {
  /** `app_mention`: a mention in a channel (its `message` twin shares the dedup key). */
  mention: Middleware<SlackEventMiddlewareArgs<'app_mention'>>;
  /** `message`: DMs and follow-ups in a channel thread the bot follows. */
  message: Middleware<SlackEventMiddlewareArgs<'message'>>;
  /** A message in an AI-app (assistant) thread, through Bolt's `Assistant`. */
  assistantMessage: AssistantUserMessageMiddleware;
}

/**
 * Each message is normalized, filtered (channel posts: mentions and followed threads only) and
 * recorded in the inbox before the listener returns, which is when Bolt acks.
 */
export function messageListeners(deps: HandlerDeps): MessageListeners {
  const { state, log, inbox } = deps;

  const onMessage = async (
    raw: unknown,
    body: EventBody,
    context: Context,
    client: webApi.WebClient,
    assistant: boolean,
  ): Promise<void> => {
    const decision = normalizeMessageEvent(
      raw,
      slackContext(context, body),
      typeof body.event_id === 'string' ? body.event_id : undefined,
    );
    if (decision.kind === 'ignore') {
      log.debug({ reason: decision.reason }, 'slack message ignored');
      await noteUnanswered(raw, slackContext(context, body), deps);
      return;
    }
    const { message } = decision;
    const inChannel = !message.isDirect;
    const answersAll = async () => (await deps.channelSettings?.answersAll(message)) === true;
    // Channel messages reach us for every post in channels we are in: answer mentions and followed
    // threads, and top-level posts in a channel set to answer every message (reply_mode all, issue 46).
    if (inChannel && !decision.mentionsBot) {
      const threadTs = (raw as { thread_ts?: string }).thread_ts;
      if (threadTs ? !(await state.follows(message.workspaceId, message.channelId, threadTs)) : !(await answersAll()))
        return;
    }
    if (decision.kind === 'too_long') return refuseTooLong(client, decision);
    // The message's own key (channel + ts): a retry and the app_mention/message twin share it.
    const id = decision.dedupKeys.at(-1)!;
    const stamped = raw as { ts?: unknown; event_ts?: unknown };
    const ts =
      typeof stamped.ts === 'string' ? stamped.ts : typeof stamped.event_ts === 'string' ? stamped.event_ts : undefined;
    const added = await recordWork(
      inbox,
      id,
      `${message.workspaceId}:${message.channelId}:${message.threadId}`,
      {
        kind: 'message',
        message,
        userTeamId: decision.userTeamId,
        assistant,
        mentions: decision.mentions,
        auth: authOf(context),
        ...(ts ? { ts, bot: { userId: context.botUserId, id: context.botId } } : {}),
      },
      ts,
    );
    if (added === 'duplicate') {
      log.info({ key: id, retryNum: context.retryNum }, 'slack duplicate event dropped');
      return;
    }
    if (added === 'full') {
      // Not awaited: over HTTP the ack waits for this listener.
      void tellThread(client, message.channelId, message.threadId, THREAD_QUEUE_FULL_TEXT(deps.maxPerThread), deps);
      return;
    }
    // Not awaited: the ack does not wait for it (follow-ups arrive seconds later; it logs its own failure).
    if (inChannel) void state.follow(message.workspaceId, message.channelId, message.threadId);
  };

  /**
   * A message over MAX_MESSAGE_CHARS: a notice in its thread, no turn. Its keys are recorded
   * before the ack, so a retry or the event's twin posts nothing more.
   */
  const refuseTooLong = async (
    client: webApi.WebClient,
    { message, chars, dedupKeys }: Extract<MessageDecision, { kind: 'too_long' }>,
  ): Promise<void> => {
    if (!(await state.firstTime(dedupKeys))) return;
    log.info(
      { platform: 'slack', channel: message.channelId, messageId: message.messageId, chars, limit: MAX_MESSAGE_CHARS },
      'slack message over the length limit refused',
    );
    // Not awaited, like the queue-full notice: the ack waits for this listener.
    void tellThread(client, message.channelId, message.threadId, messageTooLongText(chars), deps);
  };

  return {
    mention: ({ event, body, context, client }) => onMessage(event, body, context, client, false),
    message: ({ event, body, context, client }) => onMessage(event, body, context, client, false),
    assistantMessage: ({ message, body, context, client }) => onMessage(message, body, context, client, true),
  };
}
