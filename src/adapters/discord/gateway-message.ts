import { ChannelType, type Message } from 'discord.js';
import { messageTooLongText } from '../../contract/turn.js';
import { truncate } from '../../reply/text.js';
import type { Logger } from '../../telemetry/logger.js';
import { INBOX_UNAVAILABLE_TEXT as UNAVAILABLE, THREAD_QUEUE_FULL_TEXT, type AddResult } from '../../inbox/index.js';
import { LIMITS } from './limits.js';
import { conversationIn, normalizeMessage, tooLong } from './normalize.js';
import { warning } from './sinks.js';
import { claimOnce, logTooLong, recordWork, type DiscordWork, type HandlerDeps } from './work.js';
import { noteDiscordActivity } from './thread-context.js';

/**
 * A message over the gateway: a mention (answered in a new thread in a plain channel), a
 * follow-up in one of our threads, or a DM. Recorded in the inbox; there is nothing to
 * acknowledge, so a message that cannot be recorded is told so in a reply.
 */
export function createMessageHandler(
  deps: Pick<
    HandlerDeps,
    'kv' | 'inbox' | 'log' | 'maxPerThread' | 'memberRoleIds' | 'conversationTtlMs' | 'channelSettings'
  >,
): (message: Message) => Promise<void> {
  const { log } = deps;
  return async function onMessage(message) {
    const botId = message.client.user.id;
    if (message.author.bot || message.webhookId || message.system) {
      // Another app's post where the bot converses: the next turn there reads it (thread-context.ts).
      if (!message.system && message.author.id !== botId && isOurs(message))
        await noteDiscordActivity(deps.kv, log, message.channelId, message.id, deps.conversationTtlMs);
      return;
    }
    const botRoleId = message.guild?.roles.botRoleFor(botId)?.id;
    const mentioned =
      message.mentions.users.has(botId) || (botRoleId !== undefined && message.mentions.roles.has(botRoleId));
    const channel = message.channel;
    const inOurThread = channel.isThread() && (channel.ownerId === botId || channel.joined);
    // Unmentioned, outside our threads: answered only as a top-level post in a channel set to
    // answer every message (reply_mode all, issue 46); another thread's messages stay theirs.
    if (message.inGuild() && !mentioned && !inOurThread) {
      if (channel.isThread() || !deps.channelSettings) return;
      const place = conversationIn(channel, message.channelId, message.guildId, message.id);
      if (!(await deps.channelSettings.answersAll({ platform: 'discord', ...place }))) return;
    }
    const startsThread =
      message.inGuild() && (channel.type === ChannelType.GuildText || channel.type === ChannelType.GuildAnnouncement);
    if (!startsThread && !channel.isSendable()) return;
    const chars = tooLong(message.content);
    if (chars !== undefined) {
      // The gateway may hand a message over again (a resumed session): one notice per message.
      if (!(await claimOnce(deps.kv, log, `message:${message.id}`))) return;
      logTooLong(log, chars, { messageId: message.id, channelId: message.channelId });
      await replyTo(message, messageTooLongText(chars), log);
      return;
    }
    const incoming = normalizeMessage(message, botId, botRoleId, deps.memberRoleIds);
    const work: DiscordWork = {
      kind: 'message',
      message: incoming,
      channelId: message.channelId,
      originId: message.id,
      ...(startsThread ? { startThread: { name: threadName(incoming.text) } } : {}),
      ...(message.reference?.messageId
        ? { reference: { channelId: message.reference.channelId, messageId: message.reference.messageId } }
        : {}),
    };
    let added: AddResult;
    try {
      added = await recordWork(deps.inbox, work);
    } catch (err) {
      // The gateway does not redeliver: say so, or the question goes unanswered in silence.
      log.error({ err, messageId: message.id }, 'discord message not recorded in the inbox');
      await replyTo(message, UNAVAILABLE, log);
      return;
    }
    if (added === 'duplicate') log.debug({ messageId: message.id }, 'duplicate message delivery ignored');
    else if (added === 'full') await replyTo(message, THREAD_QUEUE_FULL_TEXT(deps.maxPerThread), log);
  };
}

/**
 * A DM or a thread: where the bot may converse (a thread it was mentioned in may not show it as
 * joined yet). Noting an app's post there costs one store write; the turn that reads it is rarer.
 */
function isOurs(message: Message): boolean {
  const channel = message.channel;
  return channel.isDMBased() || channel.isThread();
}

/** A refusal, as a reply to the message that asked (nobody pinged). */
async function replyTo(message: Message, text: string, log: Logger): Promise<void> {
  try {
    await message.reply({ content: warning(text), allowedMentions: { parse: [], repliedUser: false } });
  } catch (err) {
    log.warn({ err, code: (err as { code?: unknown }).code, messageId: message.id }, 'could not reply to the message');
  }
}

/** A mention's new thread is named after the first line of the question. */
function threadName(text: string): string {
  const firstLine = text.split('\n', 1)[0]?.trim() ?? '';
  return truncate(firstLine || 'Switchboard', LIMITS.threadName);
}
