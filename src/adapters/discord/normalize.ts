import { cleanContent, type ChatInputCommandInteraction, type Message } from 'discord.js';
import { MAX_MESSAGE_CHARS, type IncomingMessage, type UserRole } from '../../contract/turn.js';
import type { ButtonAction } from './custom-id.js';

/**
 * Where a Discord conversation lives, as the core keys its thread state: a thread (under its
 * parent channel), a DM channel (thread = the channel), or, for a slash command in a plain
 * channel, the command itself (each `/ask` there starts a conversation of its own).
 */
export interface Conversation {
  workspaceId: string;
  channelId: string;
  threadId: string;
  isDirect: boolean;
  /** The channel's category, when it has one (its settings apply where the channel sets none; issue 46). */
  channelParentId?: string;
}

export interface ChannelLike {
  id: string;
  isThread(): boolean;
  isDMBased(): boolean;
}

/** `fallbackThreadId` names the conversation when the channel is neither a thread nor a DM. */
export function conversationIn(
  channel: ChannelLike | null,
  channelId: string,
  guildId: string | null,
  fallbackThreadId: string,
): Conversation {
  if (!guildId || channel?.isDMBased())
    return { workspaceId: 'default', channelId, threadId: channelId, isDirect: true };
  if (channel?.isThread()) {
    const parentId = (channel as ChannelLike & { parentId: string | null }).parentId;
    const category = categoryOf((channel as { parent?: unknown }).parent);
    return {
      workspaceId: guildId,
      channelId: parentId ?? channelId,
      threadId: channelId,
      isDirect: false,
      ...(category ? { channelParentId: category } : {}),
    };
  }
  const category = categoryOf(channel);
  return {
    workspaceId: guildId,
    channelId,
    threadId: fallbackThreadId,
    isDirect: false,
    ...(category ? { channelParentId: category } : {}),
  };
}

/** A guild channel's category id (discord.js's `parentId`), if the object says. */
function categoryOf(channel: unknown): string | undefined {
  const parentId = (channel as { parentId?: unknown } | null | undefined)?.parentId;
  return typeof parentId === 'string' && parentId ? parentId : undefined;
}

/** Removes mentions of the bot (user or its managed role) and tidies the spaces they leave. */
export function stripBotMention(text: string, botId: string, botRoleId?: string): string {
  const pattern = new RegExp(`<@!?${botId}>${botRoleId ? `|<@&${botRoleId}>` : ''}`, 'g');
  return text
    .replace(pattern, ' ')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/** A member's role ids: a cached GuildMember's role cache, or the raw interaction member's list. */
export type MemberLike = { roles: { cache: { keys(): Iterable<string> } } | readonly string[] } | null | undefined;

/**
 * Guest or member for the rate limits. With DISCORD_MEMBER_ROLES unset everyone is a member;
 * with it set, a user holding none of those roles (or writing in a DM, where there are no
 * roles) is a guest.
 */
export function discordRole(member: MemberLike, memberRoleIds: readonly string[] | undefined): UserRole {
  if (!memberRoleIds?.length) return 'member';
  if (!member) return 'guest';
  const roles = Array.isArray(member.roles)
    ? (member.roles as readonly string[])
    : [...(member.roles as { cache: { keys(): Iterable<string> } }).cache.keys()];
  return roles.some((r) => memberRoleIds.includes(r)) ? 'member' : 'guest';
}

/** A member's role ids (none outside a guild). */
function roleIdsOf(member: MemberLike): string[] {
  if (!member) return [];
  return Array.isArray(member.roles)
    ? [...(member.roles as readonly string[])]
    : [...(member.roles as { cache: { keys(): Iterable<string> } }).cache.keys()];
}

const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The length of what a person sent when it is over MAX_MESSAGE_CHARS: a message's content, or
 * a slash command's string options together (each is capped by Discord, but not their sum, and
 * an HTTP interaction is whatever was POSTed). Checked before the text is normalized.
 */
export function tooLong(sent: string | CommandInput['options']): number | undefined {
  let chars = 0;
  if (typeof sent === 'string') chars = sent.length;
  else for (const option of sent) if (typeof option.value === 'string') chars += option.value.length;
  return chars > MAX_MESSAGE_CHARS ? chars : undefined;
}

/** A message that reached us. In a plain channel its reply goes to a new thread whose id is the message's. */
export function normalizeMessage(
  message: Message,
  botId: string,
  botRoleId?: string,
  memberRoleIds?: readonly string[],
): IncomingMessage {
  const conversation = conversationIn(message.channel, message.channelId, message.guildId, message.id);
  const stripped = stripBotMention(message.content, botId, botRoleId);
  return {
    platform: 'discord',
    ...conversation,
    messageId: message.id,
    userId: message.author.id,
    role: discordRole(message.member, memberRoleIds),
    // Other mentions become readable names (`@alice`, `#general`) for the model.
    text: cleanContent(stripped, message.channel),
    ...attachmentsOf(message),
  };
}

/** The message's files: Discord's CDN URLs (fetched in the turn, from the CDN hosts only), names, types, sizes. */
function attachmentsOf(message: Pick<Message, 'attachments'>): Pick<IncomingMessage, 'attachments'> {
  const files = [...(message.attachments?.values() ?? [])].map((a) => ({
    name: a.name,
    mediaType: a.contentType ?? 'application/octet-stream',
    size: a.size,
    source: { kind: 'url' as const, url: a.url },
  }));
  return files.length ? { attachments: files } : {};
}

/** What a slash command says, from a discord.js interaction (gateway) or Discord's raw payload (HTTP interactions). */
export interface CommandInput {
  id: string;
  commandName: string;
  options: readonly { name: string; value?: unknown }[];
  channel: ChannelLike | null;
  channelId: string;
  guildId: string | null;
  userId: string;
  member: MemberLike;
}

export function commandInput(interaction: ChatInputCommandInteraction): CommandInput {
  return {
    id: interaction.id,
    commandName: interaction.commandName,
    options: interaction.options.data,
    channel: interaction.channel,
    channelId: interaction.channelId,
    guildId: interaction.guildId,
    userId: interaction.user.id,
    member: interaction.member as MemberLike,
  };
}

export function normalizeCommand(input: CommandInput, memberRoleIds?: readonly string[]): IncomingMessage {
  // Null prototype: an option named `__proto__` or `constructor` is only ever a plain entry.
  const options: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const option of input.options) {
    if (PROTOTYPE_KEYS.has(option.name)) continue;
    if (typeof option.value === 'string' || typeof option.value === 'number' || typeof option.value === 'boolean')
      options[option.name] = String(option.value);
  }
  const conversation = conversationIn(input.channel, input.channelId, input.guildId, input.id);
  return {
    platform: 'discord',
    ...conversation,
    messageId: input.id,
    userId: input.userId,
    role: discordRole(input.member, memberRoleIds),
    text: options.question ?? options.request ?? '',
    command: { name: input.commandName, options },
  };
}

/** A button click, in the conversation of the message it sits on. */
export function normalizeButton(
  interaction: { id: string; userId: string; member: MemberLike },
  action: ButtonAction,
  conversation: Conversation,
  memberRoleIds?: readonly string[],
): IncomingMessage {
  return {
    platform: 'discord',
    ...conversation,
    messageId: interaction.id,
    userId: interaction.userId,
    role: discordRole(interaction.member, memberRoleIds),
    ...(roleIdsOf(interaction.member).length ? { platformRoles: roleIdsOf(interaction.member) } : {}),
    text: '',
    action: action.value === undefined ? { id: action.id } : { id: action.id, value: action.value },
  };
}
