import {
  ButtonStyle,
  ChannelType,
  ComponentType,
  InteractionResponseType,
  InteractionType,
  InteractionWebhook,
  MessageFlags,
  type APIActionRowComponent,
  type APIComponentInMessageActionRow,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Client,
  type Interaction,
  type Message,
} from 'discord.js';
import type { Agent } from '../../agent/agent.js';
import type { IncomingMessage } from '../../contract/turn.js';
import type { Logger } from '../../logger.js';
import { metrics } from '../../metrics.js';
import type { KvStore } from '../../state/kv.js';
import {
  INBOX_UNAVAILABLE_TEXT as UNAVAILABLE,
  THREAD_QUEUE_FULL_TEXT,
  snowflakeOrder,
  type AddResult,
  type Delivery,
  type DeliveryFn,
  type Inbox,
} from '../../turns/index.js';
import { COMMAND_NAMES } from './commands.js';
import type { ActionStore } from './custom-id.js';
import { LIMITS } from './limits.js';
import { truncate } from '../../reply/text.js';
import {
  commandInput,
  conversationIn,
  normalizeButton,
  normalizeCommand,
  normalizeMessage,
  type Conversation,
} from './normalize.js';
import { rawChannel, type InteractionReply, type RawInteraction } from './http-interactions.js';
import {
  channelSink,
  interactionSink,
  threadSink,
  turnNonces,
  warning,
  type InteractionHook,
  type ReplySink,
} from './sinks.js';
import { MESSAGE_MARK, runTurn, type TurnDeps } from './turn.js';

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
    }
  | { kind: 'interaction'; message: IncomingMessage; interaction: InteractionTarget };

/** Two gateway connections receive the same interaction: only one may acknowledge it. */
const SEEN_INTERACTION_TTL_MS = 3_600_000;
const conversationKey = (messageId: string) => `discord:conversation:${messageId}`;
/** Recorded when a mention's thread exists: `thread:<id>`; a replay answers there. */
const THREAD_MARK = 'thread:';
/** What a person is told, privately, for a command we do not have and a button whose action is gone (gateway and HTTP alike). */
const UNKNOWN_COMMAND = (name: string) => `I don’t know /${name}. Try /ask.`;
const BUTTON_EXPIRED = 'That button has expired. Ask me again in this conversation.';
/** Recorded once the whole answer is in Discord: a replay that finds it has nothing left to do. */
const DELIVERED = 'delivered';

export interface Handlers {
  onMessage(message: Message): Promise<void>;
  onInteraction(interaction: Interaction): Promise<void>;
  /**
   * An interaction Discord POSTed to our interactions endpoint (signature already checked):
   * recorded in the inbox first, then acknowledged by the HTTP response this returns.
   */
  onHttpInteraction(interaction: RawInteraction): Promise<InteractionReply>;
  /** The inbox's delivery function for Discord entries, answering through `client`. */
  deliver(client: Client): DeliveryFn<DiscordWork>;
}

export function createHandlers(deps: HandlerDeps): Handlers {
  const { kv, log, inbox } = deps;
  const turnDeps: TurnDeps = {
    agent: deps.agent,
    actions: deps.actions,
    log,
    editIntervalMs: deps.editIntervalMs,
    // Remembered for every message with buttons: a click on a slash-command reply in a plain
    // channel cannot tell its conversation from the channel alone.
    onButtons: async (ref, message) => {
      if (ref.messageId === '@original') return; // a replay does not learn the snowflake; the click falls back to the command's id
      const conversation: Conversation = {
        workspaceId: message.workspaceId,
        channelId: message.channelId,
        threadId: message.threadId,
        isDirect: message.isDirect,
      };
      await kv.set(conversationKey(ref.messageId), conversation, deps.conversationTtlMs);
    },
  };

  /**
   * Entries of one conversation run one at a time, in the order of their snowflakes (the message's
   * or interaction's: Discord's own clock); a redelivered event has the same id.
   */
  const enqueue = (id: string, snowflake: string, message: IncomingMessage, work: DiscordWork): Promise<AddResult> => {
    const order = snowflakeOrder(snowflake);
    return inbox.add({
      id: `discord:${id}`,
      platform: 'discord',
      thread: `discord:${message.workspaceId}:${message.channelId}:${message.threadId}`,
      payload: work,
      receivedAt: Date.now(),
      ...(order !== undefined ? { order } : {}),
    });
  };

  /** True for the one gateway connection (or replica) that gets to acknowledge this interaction. */
  async function claim(id: string): Promise<boolean> {
    try {
      return await kv.setIfAbsent(`discord:seen:interaction:${id}`, 1, SEEN_INTERACTION_TTL_MS);
    } catch (err) {
      // Better a refused acknowledgement (the other one wins) than an interaction left unanswered.
      log.error({ err, id }, 'dedup store unavailable; handling the interaction anyway');
      return true;
    }
  }

  async function onMessage(message: Message): Promise<void> {
    if (message.author.bot || message.webhookId || message.system) return;
    const botId = message.client.user.id;
    const botRoleId = message.guild?.roles.botRoleFor(botId)?.id;
    const mentioned =
      message.mentions.users.has(botId) || (botRoleId !== undefined && message.mentions.roles.has(botRoleId));
    const channel = message.channel;
    const inOurThread = channel.isThread() && (channel.ownerId === botId || channel.joined);
    if (message.inGuild() && !mentioned && !inOurThread) return;
    const startsThread =
      message.inGuild() && (channel.type === ChannelType.GuildText || channel.type === ChannelType.GuildAnnouncement);
    if (!startsThread && !channel.isSendable()) return;
    const incoming = normalizeMessage(message, botId, botRoleId, deps.memberRoleIds);
    const work: DiscordWork = {
      kind: 'message',
      message: incoming,
      channelId: message.channelId,
      originId: message.id,
      ...(startsThread ? { startThread: { name: threadName(incoming.text) } } : {}),
    };
    let added: AddResult;
    try {
      added = await enqueue(`message:${message.id}`, message.id, incoming, work);
    } catch (err) {
      // The gateway does not redeliver: say so, or the question goes unanswered in silence.
      log.error({ err, messageId: message.id }, 'discord message not recorded in the inbox');
      await replyTo(message, UNAVAILABLE);
      return;
    }
    if (added === 'duplicate') log.debug({ messageId: message.id }, 'duplicate message delivery ignored');
    else if (added === 'full') await replyTo(message, THREAD_QUEUE_FULL_TEXT(deps.maxPerThread));
  }

  async function replyTo(message: Message, text: string): Promise<void> {
    try {
      await message.reply({ content: warning(text), allowedMentions: { parse: [], repliedUser: false } });
    } catch (err) {
      log.warn(
        { err, code: (err as { code?: unknown }).code, messageId: message.id },
        'could not reply to the message',
      );
    }
  }

  async function onInteraction(interaction: Interaction): Promise<void> {
    const receivedAt = Date.now();
    if (interaction.isChatInputCommand()) return onCommand(interaction, receivedAt);
    if (interaction.isButton()) return onButton(interaction, receivedAt);
  }

  async function onCommand(interaction: ChatInputCommandInteraction, receivedAt: number): Promise<void> {
    if (!(await claim(interaction.id))) return;
    if (!COMMAND_NAMES.has(interaction.commandName)) {
      await interaction.reply({
        content: warning(UNKNOWN_COMMAND(interaction.commandName)),
        flags: MessageFlags.Ephemeral,
      });
      return;
    }
    // Discord drops an interaction not acknowledged within 3 s: defer before anything slow.
    if (!(await acknowledge(interaction, () => interaction.deferReply()))) return;
    await recordInteraction(interaction, normalizeCommand(commandInput(interaction), deps.memberRoleIds), receivedAt);
  }

  async function onButton(interaction: ButtonInteraction, receivedAt: number): Promise<void> {
    if (!(await claim(interaction.id))) return;
    if (!(await acknowledge(interaction, () => interaction.deferUpdate()))) return;
    const action = await deps.actions.decode(interaction.customId);
    // Expired, or an action nothing answers any more: say so privately and leave the buttons as they are.
    if (!action || !deps.agent.handlesAction(action.id)) {
      await interaction.followUp({ content: warning(BUTTON_EXPIRED), flags: MessageFlags.Ephemeral });
      return;
    }
    await markClicked(interaction);
    const stored = await kv.get<Conversation>(conversationKey(interaction.message.id));
    const conversation =
      stored ??
      conversationIn(
        interaction.channel,
        interaction.channelId,
        interaction.guildId,
        interaction.message.interactionMetadata?.id ?? interaction.message.id,
      );
    await recordInteraction(
      interaction,
      normalizeButton(
        { id: interaction.id, userId: interaction.user.id, member: interaction.member },
        action,
        conversation,
        deps.memberRoleIds,
      ),
      receivedAt,
    );
  }

  /** After the acknowledgement: the entry carries the interaction's token, so any replica can answer it. */
  async function recordInteraction(
    interaction: ChatInputCommandInteraction | ButtonInteraction,
    message: IncomingMessage,
    receivedAt: number,
  ): Promise<void> {
    const ownsOriginal = interaction.isChatInputCommand();
    const target: InteractionTarget = {
      id: interaction.id,
      applicationId: interaction.applicationId,
      token: interaction.token,
      channelId: interaction.channelId ?? message.channelId,
      receivedAt,
      ownsOriginal,
    };
    let added: AddResult;
    try {
      added = await enqueue(`interaction:${interaction.id}`, interaction.id, message, {
        kind: 'interaction',
        message,
        interaction: target,
      });
    } catch (err) {
      log.error({ err, interactionId: interaction.id }, 'discord interaction not recorded in the inbox');
      return tellPrivately(interaction, ownsOriginal, UNAVAILABLE);
    }
    if (added === 'full') await tellPrivately(interaction, ownsOriginal, THREAD_QUEUE_FULL_TEXT(deps.maxPerThread));
  }

  /** An ephemeral note instead of an answer; a slash command's deferred "thinking…" reply is removed first. */
  async function tellPrivately(
    interaction: ChatInputCommandInteraction | ButtonInteraction,
    ownsOriginal: boolean,
    text: string,
  ): Promise<void> {
    try {
      if (ownsOriginal)
        await interaction
          .deleteReply()
          .catch((err: unknown) => log.warn({ err }, 'could not remove the deferred reply'));
      await interaction.followUp({
        content: warning(text),
        flags: MessageFlags.Ephemeral,
        allowedMentions: { parse: [] },
      });
    } catch (err) {
      log.warn(
        { err, code: (err as { code?: unknown }).code, interactionId: interaction.id },
        'could not tell the user',
      );
    }
  }

  /** Answers one inbox entry on this replica: the sink is rebuilt from the payload's ids. */
  function deliver(client: Client): DeliveryFn<DiscordWork> {
    return async (d) => {
      const work = d.entry.payload;
      const entryLog = log.child({ entry: d.entry.id, attempt: d.attempt });
      if (d.recorded.includes(DELIVERED)) {
        entryLog.info('discord turn was already delivered before its runner stopped');
        return;
      }
      const earlier = d.recorded
        .filter((r) => r.startsWith(MESSAGE_MARK))
        .map((r) => ({ id: r.slice(MESSAGE_MARK.length), messageId: r.slice(MESSAGE_MARK.length) }));
      const sink = await sinkFor(client, d, entryLog, turnNonces(d.entry.id, earlier.length));
      if (!sink) {
        entryLog.warn(
          { channelId: work.kind === 'message' ? work.channelId : work.interaction.channelId },
          'discord entry has nowhere to be answered; dropped',
        );
        return;
      }
      const started = performance.now();
      await runTurn(turnDeps, work.message, sink, { signal: d.signal, earlier, record: d.record });
      if (d.signal.aborted) return;
      await d
        .record(DELIVERED)
        .catch((err: unknown) => entryLog.warn({ err }, 'could not record a delivered Discord turn'));
      const ms = Math.round(performance.now() - started);
      entryLog.debug(
        { replay: earlier.length > 0, ms, waitedMs: Math.max(0, Date.now() - d.entry.receivedAt - ms) },
        'discord turn delivered',
      );
    };
  }

  async function sinkFor(
    client: Client,
    d: Delivery<DiscordWork>,
    entryLog: Logger,
    nonce: () => string,
  ): Promise<ReplySink | undefined> {
    const work = d.entry.payload;
    const fetchChannel = (id: string) => client.channels.fetch(id);
    if (work.kind === 'interaction') {
      const t = work.interaction;
      const webhook = new InteractionWebhook(
        client as Client<true>,
        t.applicationId,
        t.token,
      ) as unknown as InteractionHook;
      return interactionSink({
        webhook,
        ownsOriginal: t.ownsOriginal,
        channel: async () => {
          const channel = await fetchChannel(t.channelId);
          return channel?.isSendable() ? channel : undefined;
        },
        interactionId: t.id,
        receivedAt: t.receivedAt,
        log: entryLog,
        embedDomains: deps.embedDomains,
      });
    }
    // Another replica's shard received this message: its guild is not in this client's cache,
    // and discord.js builds a guild's channels and new threads only for a cached guild.
    const guildId = work.message.isDirect ? undefined : work.message.workspaceId;
    if (guildId && !client.guilds.cache.has(guildId)) {
      await client.guilds
        .fetch(guildId)
        .catch((err: unknown) => entryLog.warn({ err, guildId }, 'could not fetch the guild of another shard'));
    }
    const channel = await fetchChannel(work.channelId).catch((err: unknown) => {
      entryLog.warn(
        { err, code: (err as { code?: unknown }).code, channelId: work.channelId },
        'could not find the channel to answer in',
      );
      return null;
    });
    if (!channel) return undefined;
    if (
      work.startThread &&
      (channel.type === ChannelType.GuildText || channel.type === ChannelType.GuildAnnouncement)
    ) {
      return threadSink({
        parent: channel,
        originId: work.originId,
        threadName: work.startThread.name,
        threadId: d.recorded.find((r) => r.startsWith(THREAD_MARK))?.slice(THREAD_MARK.length),
        fetchThread: fetchChannel,
        onThread: (id) =>
          d
            .record(`${THREAD_MARK}${id}`)
            .catch((err: unknown) =>
              entryLog.warn({ err, threadId: id }, 'could not record the new thread in the inbox'),
            ),
        log: entryLog,
        nonce,
        embedDomains: deps.embedDomains,
      });
    }
    return channel.isSendable() ? channelSink(channel, deps.embedDomains, nonce) : undefined;
  }

  async function acknowledge(interaction: Interaction, ack: () => Promise<unknown>): Promise<boolean> {
    try {
      await ack();
      metrics.acks.inc({ platform: 'discord', status: 'deferred' });
      return true;
    } catch (err) {
      metrics.acks.inc({ platform: 'discord', status: 'failed' });
      log.warn(
        { err, code: (err as { code?: unknown }).code, interactionId: interaction.id },
        'could not acknowledge the interaction',
      );
      return false;
    }
  }

  /** Disables the clicked message's buttons (the chosen one turns green), so a choice is made once. */
  async function markClicked(interaction: ButtonInteraction): Promise<void> {
    const rows = disabledRows(
      interaction.message.components.flatMap((row) =>
        row.type === ComponentType.ActionRow
          ? [row.toJSON() as APIActionRowComponent<APIComponentInMessageActionRow>]
          : [],
      ),
      interaction.customId,
    );
    if (rows.length === 0) return;
    try {
      await interaction.editReply({ components: rows });
    } catch (err) {
      log.warn({ err, code: (err as { code?: unknown }).code }, 'could not disable the clicked buttons');
    }
  }

  async function onHttpInteraction(raw: RawInteraction): Promise<InteractionReply> {
    const receivedAt = Date.now();
    const privately = (text: string): InteractionReply => ({
      type: InteractionResponseType.ChannelMessageWithSource,
      data: { content: warning(text), flags: MessageFlags.Ephemeral, allowed_mentions: { parse: [] } },
    });
    const member = raw.member ?? null;
    const userId = raw.member?.user.id ?? raw.user?.id ?? '';
    const channelId = raw.channel_id ?? raw.channel?.id ?? '';
    const channel = raw.channel ? rawChannel(raw.channel) : null;
    const target: InteractionTarget = {
      id: raw.id,
      applicationId: raw.application_id,
      token: raw.token,
      channelId,
      receivedAt,
      ownsOriginal: raw.type === InteractionType.ApplicationCommand,
    };
    /** Recorded, then the `ack` response; a failed write is answered privately and nothing is acknowledged as taken. */
    const record = async (message: IncomingMessage, ack: InteractionReply): Promise<InteractionReply> => {
      let added: AddResult;
      try {
        added = await enqueue(`interaction:${raw.id}`, raw.id, message, {
          kind: 'interaction',
          message,
          interaction: { ...target, channelId: channelId || message.channelId },
        });
      } catch (err) {
        log.error({ err, interactionId: raw.id }, 'discord interaction not recorded in the inbox');
        return privately(UNAVAILABLE);
      }
      return added === 'full' ? privately(THREAD_QUEUE_FULL_TEXT(deps.maxPerThread)) : ack;
    };

    if (raw.type === InteractionType.ApplicationCommand) {
      const data = raw.data;
      if (!data || (data.type !== undefined && data.type !== 1))
        return privately('Only slash commands are supported here.');
      if (!COMMAND_NAMES.has(data.name ?? '')) return privately(UNKNOWN_COMMAND(data.name ?? '?'));
      const message = normalizeCommand(
        {
          id: raw.id,
          commandName: data.name ?? '',
          options: data.options ?? [],
          channel,
          channelId,
          guildId: raw.guild_id ?? null,
          userId,
          member,
        },
        deps.memberRoleIds,
      );
      return record(message, { type: InteractionResponseType.DeferredChannelMessageWithSource });
    }
    if (raw.type === InteractionType.MessageComponent) {
      const customId = raw.data?.custom_id;
      if (!customId || !raw.message) return { type: InteractionResponseType.DeferredMessageUpdate };
      const action = await deps.actions.decode(customId);
      if (!action || !deps.agent.handlesAction(action.id)) return privately(BUTTON_EXPIRED);
      const stored = await kv.get<Conversation>(conversationKey(raw.message.id));
      const conversation =
        stored ??
        conversationIn(
          channel,
          channelId,
          raw.guild_id ?? null,
          raw.message.interaction_metadata?.id ?? raw.message.id,
        );
      const message = normalizeButton({ id: raw.id, userId, member }, action, conversation, deps.memberRoleIds);
      const rows = disabledRows(
        (raw.message.components ?? []) as unknown as APIActionRowComponent<APIComponentInMessageActionRow>[],
        customId,
      );
      // One response acknowledges the click and disables the buttons.
      return record(
        message,
        rows.length > 0
          ? { type: InteractionResponseType.UpdateMessage, data: { components: rows } }
          : { type: InteractionResponseType.DeferredMessageUpdate },
      );
    }
    // Discord accepts only an autocomplete result here (type 8); our options offer no suggestions.
    if (raw.type === InteractionType.ApplicationCommandAutocomplete)
      return { type: InteractionResponseType.ApplicationCommandAutocompleteResult, data: { choices: [] } };
    return privately('This kind of interaction is not supported.');
  }

  return { onMessage, onInteraction, onHttpInteraction, deliver };
}

/** A message's action rows with every button disabled; the clicked one (by custom_id) turns green. */
export function disabledRows(
  rows: readonly APIActionRowComponent<APIComponentInMessageActionRow>[],
  customId: string,
): APIActionRowComponent<APIComponentInMessageActionRow>[] {
  return rows
    .filter((row) => row.type === ComponentType.ActionRow)
    .map((row) => ({
      ...row,
      components: row.components.map((c) => {
        if (c.type !== ComponentType.Button) return c;
        const chosen = 'custom_id' in c && c.custom_id === customId;
        return {
          ...c,
          disabled: true,
          ...(chosen ? { style: ButtonStyle.Success } : {}),
        } as APIComponentInMessageActionRow;
      }),
    }));
}

function threadName(text: string): string {
  const firstLine = text.split('\n', 1)[0]?.trim() ?? '';
  return truncate(firstLine || 'Switchboard', LIMITS.threadName);
}
