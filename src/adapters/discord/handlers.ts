import {
  ButtonStyle,
  ChannelType,
  ComponentType,
  MessageFlags,
  type APIActionRowComponent,
  type APIComponentInMessageActionRow,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Interaction,
  type Message,
} from 'discord.js';
import type { Agent } from '../../agent/agent.js';
import type { Logger } from '../../logger.js';
import type { KvStore } from '../../state/kv.js';
import { COMMAND_NAMES } from './commands.js';
import type { ActionStore } from './custom-id.js';
import { LIMITS, truncate } from './limits.js';
import { conversationIn, normalizeButton, normalizeCommand, normalizeMessage, type Conversation } from './normalize.js';
import { channelSink, interactionSink, threadSink } from './sinks.js';
import { runTurn, type TurnDeps } from './turn.js';

export interface HandlerDeps {
  agent: Agent;
  kv: KvStore;
  actions: ActionStore;
  log: Logger;
  editIntervalMs: number;
  /** How long a button's conversation is remembered (the thread state's TTL). */
  conversationTtlMs: number;
}

/** A redelivered gateway event (reconnect, a second replica) is handled once. */
const SEEN_MESSAGE_TTL_MS = 24 * 3_600_000;
const SEEN_INTERACTION_TTL_MS = 3_600_000;
const conversationKey = (messageId: string) => `discord:conversation:${messageId}`;

export interface Handlers {
  onMessage(message: Message): Promise<void>;
  onInteraction(interaction: Interaction): Promise<void>;
}

export function createHandlers(deps: HandlerDeps): Handlers {
  const { kv, log } = deps;
  const turnDeps: TurnDeps = {
    agent: deps.agent,
    actions: deps.actions,
    log,
    editIntervalMs: deps.editIntervalMs,
    // Remembered for every message with buttons: a click on a slash-command reply in a plain
    // channel cannot tell its conversation from the channel alone.
    onButtons: async (ref, message) => {
      const conversation: Conversation = { workspaceId: message.workspaceId, channelId: message.channelId, threadId: message.threadId, isDirect: message.isDirect };
      await kv.set(conversationKey(ref.messageId), conversation, deps.conversationTtlMs);
    },
  };

  /** True for the one replica (or delivery) that gets to handle this event. */
  async function claim(kind: 'message' | 'interaction', id: string): Promise<boolean> {
    try {
      return await kv.setIfAbsent(`discord:seen:${kind}:${id}`, 1, kind === 'message' ? SEEN_MESSAGE_TTL_MS : SEEN_INTERACTION_TTL_MS);
    } catch (err) {
      // Better a possible duplicate than a question left unanswered.
      log.error({ err, kind, id }, 'dedup store unavailable; handling the event anyway');
      return true;
    }
  }

  async function onMessage(message: Message): Promise<void> {
    if (message.author.bot || message.webhookId || message.system) return;
    const botId = message.client.user.id;
    const botRoleId = message.guild?.roles.botRoleFor(botId)?.id;
    const mentioned = message.mentions.users.has(botId) || (botRoleId !== undefined && message.mentions.roles.has(botRoleId));
    const channel = message.channel;
    const inOurThread = channel.isThread() && (channel.ownerId === botId || channel.joined);
    if (message.inGuild() && !mentioned && !inOurThread) return;
    if (!(await claim('message', message.id))) {
      log.debug({ messageId: message.id }, 'duplicate message delivery ignored');
      return;
    }
    const incoming = normalizeMessage(message, botId, botRoleId);
    const startsThread = message.inGuild() && (channel.type === ChannelType.GuildText || channel.type === ChannelType.GuildAnnouncement);
    if (startsThread) {
      await runTurn(turnDeps, incoming, threadSink(message, threadName(incoming.text), log));
    } else if (channel.isSendable()) {
      await runTurn(turnDeps, incoming, channelSink(channel));
    }
  }

  async function onInteraction(interaction: Interaction): Promise<void> {
    const receivedAt = Date.now();
    if (interaction.isChatInputCommand()) return onCommand(interaction, receivedAt);
    if (interaction.isButton()) return onButton(interaction, receivedAt);
  }

  async function onCommand(interaction: ChatInputCommandInteraction, receivedAt: number): Promise<void> {
    if (!(await claim('interaction', interaction.id))) return;
    if (!COMMAND_NAMES.has(interaction.commandName)) {
      await interaction.reply({ content: `⚠️ I don’t know /${interaction.commandName}. Try /ask.`, flags: MessageFlags.Ephemeral });
      return;
    }
    // Discord drops an interaction not acknowledged within 3 s: defer before anything slow.
    if (!(await acknowledge(interaction, () => interaction.deferReply()))) return;
    await runTurn(turnDeps, normalizeCommand(interaction), interactionSink(interaction, { receivedAt, log }));
  }

  async function onButton(interaction: ButtonInteraction, receivedAt: number): Promise<void> {
    if (!(await claim('interaction', interaction.id))) return;
    if (!(await acknowledge(interaction, () => interaction.deferUpdate()))) return;
    const action = await deps.actions.decode(interaction.customId);
    if (!action) {
      await interaction.followUp({ content: '⚠️ That button has expired. Ask me again in this conversation.', flags: MessageFlags.Ephemeral });
      return;
    }
    await markClicked(interaction);
    const stored = await kv.get<Conversation>(conversationKey(interaction.message.id));
    const conversation =
      stored ?? conversationIn(interaction.channel, interaction.channelId, interaction.guildId, interaction.message.interactionMetadata?.id ?? interaction.message.id);
    await runTurn(turnDeps, normalizeButton(interaction, action, conversation), interactionSink(interaction, { receivedAt, log }));
  }

  async function acknowledge(interaction: Interaction, ack: () => Promise<unknown>): Promise<boolean> {
    try {
      await ack();
      return true;
    } catch (err) {
      log.warn({ err, code: (err as { code?: unknown }).code, interactionId: interaction.id }, 'could not acknowledge the interaction');
      return false;
    }
  }

  /** Disables the clicked message's buttons (the chosen one turns green), so a choice is made once. */
  async function markClicked(interaction: ButtonInteraction): Promise<void> {
    const rows = interaction.message.components.flatMap((row) => {
      if (row.type !== ComponentType.ActionRow) return [];
      const json = row.toJSON() as APIActionRowComponent<APIComponentInMessageActionRow>;
      const components = json.components.map((c) => {
        if (c.type !== ComponentType.Button) return c;
        const chosen = 'custom_id' in c && c.custom_id === interaction.customId;
        return { ...c, disabled: true, ...(chosen ? { style: ButtonStyle.Success } : {}) };
      });
      return [{ ...json, components }];
    });
    if (rows.length === 0) return;
    try {
      await interaction.editReply({ components: rows });
    } catch (err) {
      log.warn({ err, code: (err as { code?: unknown }).code }, 'could not disable the clicked buttons');
    }
  }

  return { onMessage, onInteraction };
}

function threadName(text: string): string {
  const firstLine = text.split('\n', 1)[0]?.trim() ?? '';
  return truncate(firstLine || 'Switchboard', LIMITS.threadName);
}
