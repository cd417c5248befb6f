import {
  MessageFlags,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Message,
  type MessageCreateOptions,
  type SendableChannels,
} from 'discord.js';
import type { Logger } from '../../logger.js';
import { LIMITS, truncate } from './limits.js';
import type { OutgoingMessage } from './render.js';

/** A message we posted: `id` addresses it in edits ('@original' for a deferred reply), `messageId` is its snowflake. */
export interface MessageRef {
  id: string;
  messageId: string;
}

/**
 * Where one turn's answer goes. The live reply opens one message early, edits it as the turn
 * runs and sends the rest as further messages; a failure is shown ephemerally when Discord can.
 */
export interface ReplySink {
  open(message: OutgoingMessage): Promise<MessageRef>;
  send(message: OutgoingMessage): Promise<MessageRef>;
  edit(ref: MessageRef, message: OutgoingMessage): Promise<void>;
  /** Replaces the progress (`live`, the message opened so far, if any) with an error. */
  fail(text: string, live: MessageRef | undefined): Promise<void>;
  /** Adds a warning and leaves what was already posted alone. */
  notice(text: string): Promise<void>;
  /** Shows "Switchboard is typing…" for about ten seconds; absent where Discord shows its own indicator. */
  typing?(): Promise<void>;
}

/** Nobody gets pinged by what the model writes. */
const NO_PINGS = { parse: [] as const, repliedUser: false };

export function toDiscordOptions(m: OutgoingMessage) {
  return {
    content: m.content,
    embeds: m.embeds,
    components: m.components,
    files: m.files.map((f) => ({ attachment: f.data, name: f.name, ...(f.description ? { description: f.description } : {}) })),
    allowedMentions: NO_PINGS,
  } satisfies MessageCreateOptions;
}

const warning = (text: string) => truncate(`⚠️ ${text}`, LIMITS.content);
const plain = (content: string): OutgoingMessage => ({ content, embeds: [], components: [], files: [] });
const refOf = (m: Message): MessageRef => ({ id: m.id, messageId: m.id });

/** Posts in a channel we can write to (a DM, or a thread we are part of). */
export function channelSink(channel: SendableChannels): ReplySink {
  const sent = new Map<string, Message>();
  const send = async (m: OutgoingMessage) => {
    const message = await channel.send(toDiscordOptions(m));
    sent.set(message.id, message);
    return refOf(message);
  };
  const edit = async (ref: MessageRef, m: OutgoingMessage) => {
    const message = sent.get(ref.messageId);
    if (message) await message.edit(toDiscordOptions(m));
    else await channel.messages.edit(ref.messageId, toDiscordOptions(m));
  };
  return {
    open: send,
    send,
    edit,
    async fail(text, live) {
      if (live) await edit(live, plain(warning(text)));
      else await send(plain(warning(text)));
    },
    notice: async (text) => void (await send(plain(warning(text)))),
    typing: () => channel.sendTyping(),
  };
}

/**
 * Answers a mention in a plain channel in a new thread started from the message. The thread
 * is created when the first output is ready, so a refusal (e.g. an unknown server) is a plain
 * reply instead of a thread. Without the right to create threads, it answers in the channel.
 */
export function threadSink(origin: Message<true>, threadName: string, log: Logger): ReplySink {
  let inner: ReplySink | undefined;
  const target = async (): Promise<ReplySink> => {
    if (inner) return inner;
    try {
      inner = channelSink(await origin.startThread({ name: threadName }));
    } catch (err) {
      log.warn({ err, channelId: origin.channelId, code: (err as { code?: unknown }).code }, 'could not start a thread; answering in the channel');
      inner = channelSink(origin.channel);
    }
    return inner;
  };
  return {
    open: async (m) => (await target()).open(m),
    send: async (m) => (await target()).send(m),
    edit: async (ref, m) => (await target()).edit(ref, m),
    async fail(text, live) {
      if (inner) return inner.fail(text, live);
      await origin.reply({ content: warning(text), allowedMentions: NO_PINGS });
    },
    notice: async (text) => (await target()).notice(text),
    typing: () => (inner ? inner.typing!() : origin.channel.sendTyping()),
  };
}

/** Interaction tokens live 15 minutes; past this margin, new messages go to the channel instead. */
export const INTERACTION_WINDOW_MS = 15 * 60_000 - 30_000;

/**
 * Answers an interaction through its webhook: a slash command fills in its deferred reply
 * (`@original`), a button click posts a follow-up. Errors are ephemeral follow-ups. Once the
 * token is about to expire, the answer moves to the channel: a message that can no longer be
 * edited is replaced by a new one, which later edits then change.
 */
export function interactionSink(
  interaction: ChatInputCommandInteraction | ButtonInteraction,
  opts: { receivedAt: number; now?: () => number; log: Logger },
): ReplySink {
  const now = opts.now ?? Date.now;
  const ownsOriginal = interaction.isChatInputCommand();
  const fallback = interaction.channel?.isSendable() ? channelSink(interaction.channel) : undefined;
  const inWindow = () => now() - opts.receivedAt < INTERACTION_WINDOW_MS;
  /** Interaction messages replaced in the channel after the window, by their `id`. */
  const moved = new Map<string, MessageRef>();
  const followUp = async (m: OutgoingMessage) => refOf(await interaction.followUp(toDiscordOptions(m)));
  const ephemeral = (text: string) => interaction.followUp({ content: warning(text), flags: MessageFlags.Ephemeral, allowedMentions: NO_PINGS });
  const inChannel = async (m: OutgoingMessage) => {
    if (!fallback) throw new Error('the interaction token expired and the channel is not reachable');
    opts.log.warn({ interactionId: interaction.id }, 'interaction token window over; posting in the channel');
    const ref = await fallback.send(m);
    moved.set(ref.id, ref);
    return ref;
  };
  const notice = async (text: string) => {
    if (inWindow()) await ephemeral(text);
    else await fallback?.send(plain(warning(text)));
  };
  return {
    async open(m) {
      if (!inWindow()) return inChannel(m);
      if (!ownsOriginal) return followUp(m);
      const message = await interaction.editReply(toDiscordOptions(m));
      return { id: '@original', messageId: message.id };
    },
    send: (m) => (inWindow() ? followUp(m) : inChannel(m)),
    async edit(ref, m) {
      const replacement = moved.get(ref.id);
      if (replacement) await fallback!.edit(replacement, m);
      else if (inWindow()) await interaction.editReply({ ...toDiscordOptions(m), message: ref.id });
      else moved.set(ref.id, await inChannel(m));
    },
    async fail(text, live) {
      if (!inWindow()) return notice(text);
      // Half-written progress is removed; the error is shown only to the person who asked.
      if (live) await interaction.deleteReply(live.id).catch((err: unknown) => opts.log.warn({ err }, 'could not remove the progress message'));
      else if (ownsOriginal) await interaction.deleteReply().catch((err: unknown) => opts.log.warn({ err }, 'could not remove the deferred reply'));
      await ephemeral(text);
    },
    notice,
  };
}
