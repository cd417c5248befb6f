import type { ChannelSettingsView } from '../channel-settings.js';
import type { Agent } from '../../agent/agent.js';
import { MAX_MESSAGE_CHARS, type IncomingMessage } from '../../contract/turn.js';
import type { KvStore } from '../../state/kv.js';
import type { Logger } from '../../telemetry/logger.js';
import { snowflakeOrder, type AddResult, type Inbox } from '../../inbox/index.js';
import type { ActionStore } from './custom-id.js';

/**
 * What every Discord entry point shares: the entry it records in the inbox, how it records it,
 * the one-acknowledgement claim, and the refusals worded alike on the gateway and over HTTP.
 */

export interface HandlerDeps {
  agent: Agent;
  kv: KvStore;
  inbox: Inbox;
  actions: ActionStore;
  log: Logger;
  editIntervalMs: number;
  /** How long a button's conversation is remembered (the thread state's TTL). */
  conversationTtlMs: number;
  /** The inbox's bound per conversation (INBOX_THREAD_QUEUE_MAX), for the "please wait" reply. */
  maxPerThread: number;
  /** DISCORD_MEMBER_ROLES: users with none of these roles are guests (unset: everyone is a member). */
  memberRoleIds?: readonly string[];
  /** DISCORD_EMBED_DOMAINS: links there may show a preview; every other link in our messages is sent with embeds suppressed. */
  embedDomains: readonly string[];
  /** Settings per channel (issue 46): `reply_mode: all` channels, `/switchboard settings`. */
  channelSettings?: ChannelSettingsView;
}

/** Where an interaction is answered, by ids and token only: any replica can rebuild its webhook. */
export interface InteractionTarget {
  id: string;
  applicationId: string;
  token: string;
  channelId: string;
  receivedAt: number;
  /** A slash command's deferred reply is ours to fill in; a button click answers in follow-ups. */
  ownsOriginal: boolean;
}

/** What the Discord adapter records in the inbox for one event: enough to answer it on any replica. JSON. */
export type DiscordWork =
  | {
      kind: 'message';
      message: IncomingMessage;
      /** The channel (DM, thread or plain channel) the message was written in. */
      channelId: string;
      /** The message itself: a new thread starts from it, a refusal replies to it. */
      originId: string;
      /** A mention in a plain channel: answered in a new thread with this name. */
      startThread?: { name: string };
      /** The message it replies to (`message_reference`): context for the turn (src/adapters/discord/thread-context.ts). */
      reference?: { channelId: string; messageId: string };
    }
  | { kind: 'interaction'; message: IncomingMessage; interaction: InteractionTarget };

/** What a person is told, privately, for a command we do not have and a button whose action is gone (gateway and HTTP alike). */
export const UNKNOWN_COMMAND = (name: string) => `I don’t know /${name}. Try /ask.`;
export const BUTTON_EXPIRED = 'That button has expired. Ask me again in this conversation.';
/** A context-menu command (user or message) and a modal submit: we register neither. */
export const ONLY_SLASH_COMMANDS = 'Only slash commands are supported here.';
export const UNSUPPORTED_INTERACTION = 'This kind of interaction is not supported.';
/** A select menu (or any control but a button) on a message: we never send one, so it is not ours. */
export const FOREIGN_SELECT = 'That select menu isn’t one of mine.';

/** Two gateway connections receive the same interaction: only one may acknowledge it. */
const SEEN_INTERACTION_TTL_MS = 3_600_000;

/**
 * Records one event in the inbox. Entries of one conversation run one at a time, in the order of
 * their snowflakes (the message's or interaction's: Discord's own clock); a redelivered event has
 * the same id, so it is a duplicate.
 */
export function recordWork(inbox: Inbox, work: DiscordWork): Promise<AddResult> {
  const { message } = work;
  const snowflake = work.kind === 'message' ? work.originId : work.interaction.id;
  const order = snowflakeOrder(snowflake);
  return inbox.add({
    id: `discord:${work.kind}:${snowflake}`,
    platform: 'discord',
    thread: `discord:${message.workspaceId}:${message.channelId}:${message.threadId}`,
    payload: work,
    receivedAt: Date.now(),
    ...(order !== undefined ? { order } : {}),
  });
}

/** True for the one gateway connection (or replica) that gets to acknowledge this event. */
export async function claimOnce(kv: KvStore, log: Logger, id: string): Promise<boolean> {
  try {
    return await kv.setIfAbsent(`discord:seen:interaction:${id}`, 1, SEEN_INTERACTION_TTL_MS);
  } catch (err) {
    // Better a refused acknowledgement (the other one wins) than an interaction left unanswered.
    log.error({ err, id }, 'dedup store unavailable; handling the interaction anyway');
    return true;
  }
}

/** The structured line for a message or command over MAX_MESSAGE_CHARS (its text is never logged). */
export function logTooLong(log: Logger, chars: number, where: Record<string, string | undefined>): void {
  log.info(
    { platform: 'discord', ...where, chars, limit: MAX_MESSAGE_CHARS },
    'discord message over the length limit refused',
  );
}
