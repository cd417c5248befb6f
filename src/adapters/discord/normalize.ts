import { cleanContent, type ButtonInteraction, type ChatInputCommandInteraction, type Message } from 'discord.js';
import type { IncomingMessage } from '../../agent/types.js';
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
}

interface ChannelLike {
  id: string;
  isThread(): boolean;
  isDMBased(): boolean;
}

/** `fallbackThreadId` names the conversation when the channel is neither a thread nor a DM. */
export function conversationIn(channel: ChannelLike | null, channelId: string, guildId: string | null, fallbackThreadId: string): Conversation {
  if (!guildId || channel?.isDMBased()) return { workspaceId: 'default', channelId, threadId: channelId, isDirect: true };
  if (channel?.isThread()) {
    const parentId = (channel as ChannelLike & { parentId: string | null }).parentId;
    return { workspaceId: guildId, channelId: parentId ?? channelId, threadId: channelId, isDirect: false };
  }
  return { workspaceId: guildId, channelId, threadId: fallbackThreadId, isDirect: false };
}

/** Removes mentions of the bot (user or its managed role) and tidies the spaces they leave. */
export function stripBotMention(text: string, botId: string, botRoleId?: string): string {
  const pattern = new RegExp(`<@!?${botId}>${botRoleId ? `|<@&${botRoleId}>` : ''}`, 'g');
  return text
    .replace(pattern, ' ')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/** A message that reached us. In a plain channel its reply goes to a new thread whose id is the message's. */
export function normalizeMessage(message: Message, botId: string, botRoleId?: string): IncomingMessage {
  const conversation = conversationIn(message.channel, message.channelId, message.guildId, message.id);
  const stripped = stripBotMention(message.content, botId, botRoleId);
  return {
    platform: 'discord',
    ...conversation,
    messageId: message.id,
    userId: message.author.id,
    // Other mentions become readable names (`@alice`, `#general`) for the model.
    text: cleanContent(stripped, message.channel),
  };
}

export function normalizeCommand(interaction: ChatInputCommandInteraction): IncomingMessage {
  const options: Record<string, string> = {};
  for (const option of interaction.options.data) {
    if (typeof option.value === 'string' || typeof option.value === 'number' || typeof option.value === 'boolean') options[option.name] = String(option.value);
  }
  const conversation = conversationIn(interaction.channel, interaction.channelId, interaction.guildId, interaction.id);
  return {
    platform: 'discord',
    ...conversation,
    messageId: interaction.id,
    userId: interaction.user.id,
    text: options.question ?? options.request ?? '',
    command: { name: interaction.commandName, options },
  };
}

/** A button click, in the conversation of the message it sits on. */
export function normalizeButton(interaction: ButtonInteraction, action: ButtonAction, conversation: Conversation): IncomingMessage {
  return {
    platform: 'discord',
    ...conversation,
    messageId: interaction.id,
    userId: interaction.user.id,
    text: '',
    action: action.value === undefined ? { id: action.id } : { id: action.id, value: action.value },
  };
}
