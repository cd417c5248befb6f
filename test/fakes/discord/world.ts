/**
 * What the fake Discord knows: one guild with a #general channel, the bot, two people and
 * another bot; channels, threads, DMs and messages as they change; interactions and their
 * tokens. REST handlers change it; every change is dispatched over the gateway as Discord
 * does (MESSAGE_CREATE for the bot's own messages too, MESSAGE_UPDATE on edits, THREAD_CREATE).
 */
import { ChannelType, MessageFlags, SnowflakeUtil, type APIChannel, type APIMessage, type APIUser } from 'discord.js';
import type { FakeGateway } from './gateway.js';
import {
  dmChannel,
  member,
  message,
  snowflake,
  textChannel,
  threadChannel,
  user,
  type InteractionPayload,
  type MessageInput,
} from './payloads.js';

export interface InteractionRecord {
  payload: InteractionPayload;
  /** When INTERACTION_CREATE was written to each gateway session (performance.now()). */
  dispatchedAt: number;
  /** The callback: its type and when it arrived. */
  callback?: { type: number; at: number };
  /** An autocomplete's answer (callback type 8). */
  choices?: unknown[];
  /** The modal shown in answer (callback type 9): its custom_id, title and components. */
  modal?: { custom_id: string; title: string; components: unknown[] };
  /** The message `@original` refers to (the deferred reply, or the clicked message). */
  originalId?: string;
  /** Follow-ups and the original: the messages this token may edit. */
  messageIds: Set<string>;
}

export interface World {
  readonly token: string;
  readonly applicationId: string;
  readonly bot: APIUser;
  readonly people: { alice: APIUser; bob: APIUser; otherBot: APIUser };
  readonly guildId: string;
  /** A second guild, for tenant tests; with two shards, it is on the other shard than `guildId`. */
  readonly otherGuildId: string;
  readonly guildIds: readonly string[];
  readonly general: APIChannel;
  readonly otherGeneral: APIChannel;
  readonly botRoleId: string;
  /** A "Members" role in the main guild: alice holds it, bob does not (for DISCORD_MEMBER_ROLES). */
  readonly memberRoleId: string;
  readonly channels: Map<string, APIChannel>;
  readonly messages: Map<string, APIMessage>;
  readonly interactions: Map<string, InteractionRecord>;
  commands: { global: unknown[]; guild: Map<string, unknown[]> };
  attachGateway(gateway: FakeGateway): void;
  guildCreate(guildId: string): unknown;
  /** A guild as GET /guilds/:id returns it. */
  guild(guildId: string): unknown;
  createMessage(input: MessageInput, opts?: { dispatch?: boolean }): APIMessage;
  editMessage(id: string, patch: Partial<APIMessage>): APIMessage;
  deleteMessage(id: string): void;
  createThread(parentId: string, messageId: string, name: string): APIChannel;
  dmChannelFor(person: APIUser): APIChannel;
  guildOf(channelId: string): string | undefined;
  dispatch(t: string, d: unknown): Map<string, number>;
}

export function createWorld(opts: { token: string; applicationId: string }): World {
  const bot = user('switchboard', { bot: true, id: opts.applicationId });
  const people = { alice: user('alice'), bob: user('bob'), otherBot: user('helperbot', { bot: true }) };
  const guildId = snowflake();
  // One millisecond later: the other parity of `guild_id >> 22`, so the other of two shards.
  const otherGuildId = SnowflakeUtil.generate({ timestamp: SnowflakeUtil.timestampFrom(guildId) + 1 }).toString();
  const general = textChannel(guildId, 'general');
  const otherGeneral = textChannel(otherGuildId, 'general');
  const botRoleId = snowflake();
  const memberRoleId = snowflake();
  const rolesOf = (u: APIUser) => (u.id === people.alice.id ? [memberRoleId] : []);
  const channels = new Map<string, APIChannel>([general, otherGeneral].map((c) => [c.id, c]));
  const messages = new Map<string, APIMessage>();
  const dms = new Map<string, APIChannel>();
  let gateway: FakeGateway | undefined;
  const joinedAt = new Date().toISOString();

  const guildOf = (channelId: string) => (channels.get(channelId) as { guild_id?: string } | undefined)?.guild_id;
  const dispatch = (t: string, d: unknown) => gateway?.dispatch(t, d) ?? new Map<string, number>();
  const channelType = (channelId: string) => channels.get(channelId)?.type;
  /** A message as MESSAGE_CREATE carries it: with guild_id and member in a guild, channel_type always. */
  const dispatched = (m: APIMessage) => {
    const g = guildOf(m.channel_id);
    return {
      ...m,
      channel_type: channelType(m.channel_id),
      ...(g
        ? {
            guild_id: g,
            ...(m.webhook_id ? {} : { member: { ...member(m.author, joinedAt, rolesOf(m.author)), user: undefined } }),
          }
        : {}),
    };
  };

  return {
    token: opts.token,
    applicationId: opts.applicationId,
    bot,
    people,
    guildId,
    otherGuildId,
    guildIds: [guildId, otherGuildId],
    general,
    otherGeneral,
    botRoleId,
    memberRoleId,
    channels,
    messages,
    interactions: new Map(),
    commands: { global: [], guild: new Map() },
    attachGateway(g) {
      gateway = g;
    },
    guild(id) {
      const {
        joined_at: _j,
        large: _l,
        unavailable: _u,
        member_count: _m,
        members: _ms,
        channels: _c,
        threads: _t,
        voice_states: _v,
        presences: _p,
        stage_instances: _s,
        guild_scheduled_events: _g,
        soundboard_sounds: _ss,
        ...guild
      } = this.guildCreate(id) as Record<string, unknown>;
      return {
        ...guild,
        region: 'deprecated',
        widget_enabled: false,
        widget_channel_id: null,
        max_members: 500_000,
        max_presences: null,
        max_video_channel_users: 25,
        max_stage_video_channel_users: 50,
        approximate_member_count: 4,
        approximate_presence_count: 1,
        hub_type: null,
        incidents_data: null,
      };
    },
    guildCreate(id) {
      const everyone = {
        id,
        name: '@everyone',
        permissions: '2248473465835073',
        position: 0,
        color: 0,
        colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
        hoist: false,
        managed: false,
        mentionable: false,
        flags: 0,
        icon: null,
        unicode_emoji: null,
      };
      const botRole = {
        ...everyone,
        id: botRoleId,
        name: 'Switchboard',
        position: 1,
        managed: true,
        tags: { bot_id: bot.id },
      };
      const membersRole = { ...everyone, id: memberRoleId, name: 'Members', position: 2 };
      const own = [...channels.values()].filter((c) => (c as { guild_id?: string }).guild_id === id);
      return {
        id,
        name: id === guildId ? 'Test Server' : 'Other Server',
        icon: null,
        splash: null,
        discovery_splash: null,
        banner: null,
        description: null,
        owner_id: people.alice.id,
        afk_channel_id: null,
        afk_timeout: 300,
        verification_level: 0,
        default_message_notifications: 0,
        explicit_content_filter: 0,
        roles: id === guildId ? [everyone, botRole, membersRole] : [everyone],
        emojis: [],
        stickers: [],
        features: [],
        mfa_level: 0,
        application_id: null,
        system_channel_id: null,
        system_channel_flags: 0,
        rules_channel_id: null,
        public_updates_channel_id: null,
        safety_alerts_channel_id: null,
        vanity_url_code: null,
        premium_tier: 0,
        premium_subscription_count: 0,
        preferred_locale: 'en-US',
        nsfw_level: 0,
        premium_progress_bar_enabled: false,
        joined_at: joinedAt,
        large: false,
        unavailable: false,
        member_count: 4,
        members: [member(bot, joinedAt)],
        channels: own.filter((c) => c.type !== ChannelType.PublicThread),
        threads: own.filter((c) => c.type === ChannelType.PublicThread),
        voice_states: [],
        presences: [],
        stage_instances: [],
        guild_scheduled_events: [],
        soundboard_sounds: [],
      };
    },
    createMessage(input, o = {}) {
      const m = message(input);
      messages.set(m.id, m);
      const channel = channels.get(m.channel_id) as
        { last_message_id?: string | null; message_count?: number } | undefined;
      if (channel) {
        channel.last_message_id = m.id;
        if (channel.message_count !== undefined) channel.message_count++;
      }
      // Ephemeral messages never reach the gateway.
      if (o.dispatch !== false && ((m.flags ?? 0) & MessageFlags.Ephemeral) === 0)
        dispatch('MESSAGE_CREATE', dispatched(m));
      return m;
    },
    editMessage(id, patch) {
      const m = messages.get(id);
      if (!m) throw new Error(`no message ${id}`);
      Object.assign(m, patch, { edited_timestamp: new Date().toISOString() });
      if (((m.flags ?? 0) & MessageFlags.Ephemeral) === 0) dispatch('MESSAGE_UPDATE', dispatched(m));
      return m;
    },
    deleteMessage(id) {
      const m = messages.get(id);
      if (!m) return;
      messages.delete(id);
      const g = guildOf(m.channel_id);
      dispatch('MESSAGE_DELETE', { id, channel_id: m.channel_id, ...(g ? { guild_id: g } : {}) });
    },
    createThread(parentId, messageId, name) {
      const g = guildOf(parentId)!;
      const thread = threadChannel({ id: messageId, guildId: g, parentId, ownerId: bot.id, name, memberId: bot.id });
      channels.set(thread.id, thread);
      const start = messages.get(messageId);
      if (start) Object.assign(start, { thread, flags: (start.flags ?? 0) | MessageFlags.HasThread });
      dispatch('THREAD_CREATE', { ...thread, newly_created: true });
      return thread;
    },
    dmChannelFor(person) {
      let dm = dms.get(person.id);
      if (!dm) {
        dm = dmChannel(person);
        dms.set(person.id, dm);
        channels.set(dm.id, dm);
      }
      return dm;
    },
    guildOf,
    dispatch,
  };
}
