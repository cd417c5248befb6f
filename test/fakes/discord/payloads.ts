/**
 * Discord API objects as the real API sends them (v10 field names and required fields),
 * for the fake's REST responses and gateway dispatches.
 */
import { randomBytes } from 'node:crypto';
import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ChannelType,
  ComponentType,
  InteractionContextType,
  InteractionType,
  MessageType,
  SnowflakeUtil,
  type APIChannel,
  type ChannelFlags,
  type GuildMemberFlags,
  type ThreadMemberFlags,
  type UserFlags,
  type APIGuildMember,
  type APIMessage,
  type APIUser,
} from 'discord.js';

export const snowflake = (): string => SnowflakeUtil.generate().toString();
export const interactionToken = (): string => `aW50ZXJhY3Rpb246${randomBytes(60).toString('base64url')}`;
const isoFrom = (id: string) => new Date(SnowflakeUtil.timestampFrom(id)).toISOString();

export function user(username: string, opts: { bot?: boolean; id?: string } = {}): APIUser {
  return {
    id: opts.id ?? snowflake(),
    username,
    discriminator: '0',
    global_name: opts.bot ? null : username[0]!.toUpperCase() + username.slice(1),
    avatar: null,
    public_flags: 0 as UserFlags,
    flags: 0 as UserFlags,
    primary_guild: null,
    ...(opts.bot ? { bot: true } : {}),
  };
}

export function member(u: APIUser, joinedAt = new Date().toISOString(), roles: string[] = []): APIGuildMember {
  return {
    user: u,
    roles,
    joined_at: joinedAt,
    deaf: false,
    mute: false,
    flags: 0 as GuildMemberFlags,
    nick: null,
    avatar: null,
    premium_since: null,
    pending: false,
    communication_disabled_until: null,
  };
}

export function textChannel(guildId: string, name: string, position = 0): APIChannel {
  return {
    id: snowflake(),
    type: ChannelType.GuildText,
    guild_id: guildId,
    name,
    position,
    permission_overwrites: [],
    parent_id: null,
    nsfw: false,
    topic: null,
    last_message_id: null,
    rate_limit_per_user: 0,
    default_auto_archive_duration: 1440,
    flags: 0 as ChannelFlags,
  };
}

export function threadChannel(p: {
  id: string;
  guildId: string;
  parentId: string;
  ownerId: string;
  name: string;
  memberId?: string;
}): APIChannel {
  const now = new Date().toISOString();
  return {
    id: p.id,
    type: ChannelType.PublicThread,
    guild_id: p.guildId,
    parent_id: p.parentId,
    owner_id: p.ownerId,
    name: p.name,
    last_message_id: null,
    message_count: 0,
    member_count: 1,
    total_message_sent: 0,
    rate_limit_per_user: 0,
    flags: 0 as ChannelFlags,
    thread_metadata: {
      archived: false,
      archive_timestamp: now,
      auto_archive_duration: 1440,
      locked: false,
      create_timestamp: now,
    },
    ...(p.memberId
      ? { member: { id: p.id, user_id: p.memberId, join_timestamp: now, flags: 0 as ThreadMemberFlags } }
      : {}),
  };
}

export function dmChannel(recipient: APIUser): APIChannel {
  return {
    id: snowflake(),
    type: ChannelType.DM,
    name: null,
    last_message_id: null,
    recipients: [recipient],
    flags: 0 as ChannelFlags,
  };
}

export interface MessageInput {
  id?: string;
  channelId: string;
  author: APIUser;
  content?: string;
  embeds?: unknown[];
  components?: unknown[];
  attachments?: unknown[];
  mentions?: APIUser[];
  mentionRoles?: string[];
  flags?: number;
  type?: MessageType;
  webhookId?: string;
  applicationId?: string;
  interactionMetadata?: Record<string, unknown>;
  messageReference?: { message_id: string; channel_id: string; guild_id?: string };
}

export function message(m: MessageInput): APIMessage {
  const id = m.id ?? snowflake();
  return {
    id,
    channel_id: m.channelId,
    author: m.author,
    content: m.content ?? '',
    timestamp: isoFrom(id),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: m.mentions ?? [],
    mention_roles: m.mentionRoles ?? [],
    attachments: (m.attachments ?? []) as APIMessage['attachments'],
    embeds: (m.embeds ?? []) as APIMessage['embeds'],
    components: (m.components ?? []) as APIMessage['components'],
    pinned: false,
    type: m.type ?? MessageType.Default,
    flags: m.flags ?? 0,
    ...(m.webhookId ? { webhook_id: m.webhookId } : {}),
    ...(m.applicationId ? { application_id: m.applicationId } : {}),
    ...(m.interactionMetadata
      ? { interaction_metadata: m.interactionMetadata as unknown as APIMessage['interaction_metadata'] }
      : {}),
    ...(m.messageReference ? { message_reference: { type: 0, ...m.messageReference } } : {}),
  };
}

interface InteractionBase {
  applicationId: string;
  channel: APIChannel;
  guildId?: string;
  user: APIUser;
  /** The member's role ids in the guild (a button click carries them, as Discord's does). */
  roles?: string[];
}

function interactionEnvelope(p: InteractionBase) {
  const inGuild = p.guildId !== undefined;
  return {
    id: snowflake(),
    application_id: p.applicationId,
    token: interactionToken(),
    version: 1,
    channel: p.channel,
    channel_id: p.channel.id,
    ...(inGuild
      ? {
          guild_id: p.guildId,
          member: { ...member(p.user, undefined, p.roles ?? []), permissions: '2248473465835073' },
          guild_locale: 'en-US',
        }
      : { user: p.user }),
    app_permissions: '2248473465835073',
    locale: 'en-US',
    entitlements: [],
    authorizing_integration_owners: inGuild ? { '0': p.guildId } : { '1': p.user.id },
    context: inGuild ? InteractionContextType.Guild : InteractionContextType.BotDM,
    attachment_size_limit: 10_485_760,
  };
}

export function chatInputInteraction(
  p: InteractionBase & { commandId: string; name: string; options: Record<string, string> },
) {
  return {
    ...interactionEnvelope(p),
    type: InteractionType.ApplicationCommand,
    data: {
      id: p.commandId,
      name: p.name,
      type: ApplicationCommandType.ChatInput,
      options: Object.entries(p.options).map(([name, value]) => ({
        name,
        type: ApplicationCommandOptionType.String,
        value,
      })),
      ...(p.guildId ? { guild_id: p.guildId } : {}),
    },
  };
}

export function buttonInteraction(p: InteractionBase & { message: APIMessage; customId: string }) {
  return {
    ...interactionEnvelope(p),
    type: InteractionType.MessageComponent,
    message: p.message,
    data: { custom_id: p.customId, component_type: ComponentType.Button },
  };
}

/** A select menu (string select) on a message, of another app. */
export function selectInteraction(p: InteractionBase & { message: APIMessage; customId: string; values: string[] }) {
  return {
    ...interactionEnvelope(p),
    type: InteractionType.MessageComponent,
    message: p.message,
    data: { custom_id: p.customId, component_type: ComponentType.StringSelect, values: p.values },
  };
}

/** A modal's submit. */
export function modalSubmitInteraction(p: InteractionBase & { customId: string }) {
  return {
    ...interactionEnvelope(p),
    type: InteractionType.ModalSubmit,
    data: {
      custom_id: p.customId,
      components: [
        { type: ComponentType.ActionRow, components: [{ type: ComponentType.TextInput, custom_id: 'q', value: 'hi' }] },
      ],
    },
  };
}

/** An autocomplete request while typing a slash command's option. */
export function autocompleteInteraction(p: InteractionBase & { commandId: string; name: string }) {
  return {
    ...interactionEnvelope(p),
    type: InteractionType.ApplicationCommandAutocomplete,
    data: {
      id: p.commandId,
      name: p.name,
      type: ApplicationCommandType.ChatInput,
      options: [{ name: 'question', type: ApplicationCommandOptionType.String, value: 'acm', focused: true }],
    },
  };
}

/** A message context-menu command (right click → Apps). */
export function messageCommandInteraction(
  p: InteractionBase & { commandId: string; name: string; target: APIMessage },
) {
  return {
    ...interactionEnvelope(p),
    type: InteractionType.ApplicationCommand,
    data: {
      id: p.commandId,
      name: p.name,
      type: ApplicationCommandType.Message,
      target_id: p.target.id,
      resolved: { messages: { [p.target.id]: p.target } },
    },
  };
}

export type InteractionPayload =
  | ReturnType<typeof chatInputInteraction>
  | ReturnType<typeof buttonInteraction>
  | ReturnType<typeof selectInteraction>
  | ReturnType<typeof modalSubmitInteraction>
  | ReturnType<typeof autocompleteInteraction>
  | ReturnType<typeof messageCommandInteraction>;
