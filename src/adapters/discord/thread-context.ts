import { cleanContent, type Client, type Message } from 'discord.js';
import {
  ThreadContextError,
  type ThreadContextMessage,
  type ThreadContextSource,
} from '../../contract/thread-context.js';
import type { KvStore } from '../../state/kv.js';
import type { Logger } from '../../telemetry/logger.js';
import { stripBotMention } from './normalize.js';

/**
 * The conversation before a Discord message (issue 42): the message it replies to
 * (`message_reference`), and in a thread or DM the messages before it (`messages.fetch({ before })`,
 * one page of 100), leaving out the bot's own. Authors by their server display name (from the
 * member cache; no call). A later turn of the same thread asks only for what is newer than its
 * cursor, and makes no call when nothing it did not answer was posted there since
 * (`noteDiscordActivity`, from the gateway).
 */

const PAGE = 100;

/** Where the turn's message was written, and what it replies to (from the inbox entry). */
export interface DiscordContextInput {
  client: Client;
  kv: KvStore;
  log: Logger;
  /** The channel the message was written in (a thread, a DM or a plain channel). */
  channelId: string;
  /** The message itself. */
  originId: string;
  /** A plain channel: the answer goes to a new thread, so only the replied-to message is context. */
  startsThread: boolean;
  reference?: { channelId: string; messageId: string };
}

const activityKey = (channelId: string) => `discord:activity:${channelId}`;

/** A message the bot did not answer (another bot's, a webhook's) in a thread or DM it is in: the next turn there fetches again. */
export async function noteDiscordActivity(
  kv: KvStore,
  log: Logger,
  channelId: string,
  messageId: string,
  ttlMs: number,
) {
  await kv
    .set(activityKey(channelId), messageId, ttlMs)
    .catch((err: unknown) => log.warn({ err }, 'could not note a message in a Discord thread'));
}

export function discordThreadContext(input: DiscordContextInput): ThreadContextSource | undefined {
  if (input.startsThread && !input.reference) return undefined;
  return {
    upTo: input.originId,
    async fetch(since) {
      if (since !== undefined && !(await activitySince(input, since))) return { messages: [], calls: 0 };
      let calls = 0;
      const found = new Map<string, Message>();
      try {
        const channel = await input.client.channels.fetch(input.channelId);
        if (!channel?.isTextBased()) return { messages: [], calls };
        if (!input.startsThread) {
          calls++;
          const page = await channel.messages.fetch({ before: input.originId, limit: PAGE, cache: false });
          for (const m of page.values()) found.set(m.id, m);
        }
        const ref = input.reference;
        if (ref && !found.has(ref.messageId) && (since === undefined || snowflakeAfter(ref.messageId, since))) {
          const refChannel =
            ref.channelId === input.channelId ? channel : await input.client.channels.fetch(ref.channelId);
          if (refChannel?.isTextBased()) {
            calls++;
            found.set(ref.messageId, await refChannel.messages.fetch({ message: ref.messageId, cache: false }));
          }
        }
      } catch (err) {
        throw new ThreadContextError(discordErrorCode(err), { cause: err });
      }
      const botId = input.client.user?.id;
      const kept = [...found.values()]
        .filter((m) => m.author.id !== botId && (since === undefined || snowflakeAfter(m.id, since)))
        .filter((m) => snowflakeAfter(input.originId, m.id))
        .sort((a, b) => (snowflakeAfter(a.id, b.id) ? 1 : -1));
      return { messages: kept.map((m) => describe(m, botId)), calls };
    },
  };
}

async function activitySince(input: DiscordContextInput, since: string): Promise<boolean> {
  try {
    const last = await input.kv.get<string>(activityKey(input.channelId));
    return last !== undefined && snowflakeAfter(last, since);
  } catch (err) {
    input.log.warn({ err }, 'could not read a Discord thread’s last message; fetching its context');
    return true;
  }
}

function describe(m: Message, botId: string | undefined): ThreadContextMessage {
  const author = m.member?.displayName ?? m.author.globalName ?? m.author.username;
  const content = m.content.slice(0, 8_000);
  const text = botId ? stripBotMention(content, botId) : content;
  const files = [...m.attachments.values()].map((a) => ({ name: a.name, type: a.contentType ?? '' }));
  return {
    id: m.id,
    author,
    at: m.createdAt.toISOString(),
    text: m.channel ? cleanContent(text, m.channel) : text,
    ...(files.length ? { files } : {}),
    ...(m.editedTimestamp ? { edited: true } : {}),
    ...(m.author.bot || m.webhookId ? { bot: true } : {}),
  };
}

/** Snowflakes grow with time: compared as integers. */
export function snowflakeAfter(a: string, b: string): boolean {
  try {
    return BigInt(a) > BigInt(b);
  } catch {
    return a > b;
  }
}

/** Discord's refusal as a short code for the warn line (`ratelimited`, `missing_access`…). */
function discordErrorCode(err: unknown): string {
  const e = err as { status?: unknown; code?: unknown };
  if (e.status === 429) return 'ratelimited';
  switch (e.code) {
    case 50001:
      return 'missing_access';
    case 50013:
      return 'missing_permissions';
    case 10003:
      return 'unknown_channel';
    case 10008:
      return 'unknown_message';
    default:
      return typeof e.status === 'number' ? `http_${e.status}` : 'failed';
  }
}
