import { createHash } from 'node:crypto';
import {
  MessageFlags,
  type InteractionWebhook,
  type Message,
  type MessageCreateOptions,
  type NewsChannel,
  type SendableChannels,
  type TextChannel,
} from 'discord.js';
import type { Logger } from '../../telemetry/logger.js';
import { allLinksOn } from '../links.js';
import { LIMITS } from './limits.js';
import { truncate } from '../../reply/text.js';
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
  /** Replaces a message's content; returns the ref with its snowflake when Discord tells it. */
  edit(ref: MessageRef, message: OutgoingMessage): Promise<MessageRef | void>;
  /** Deletes a message of ours (a replay's leftovers). */
  remove?(ref: MessageRef): Promise<void>;
  /** Replaces the progress (`live`, the message opened so far, if any) with an error. */
  fail(text: string, live: MessageRef | undefined): Promise<void>;
  /** Adds a warning and leaves what was already posted alone. */
  notice(text: string): Promise<void>;
  /** Shows "Switchboard is typing…" for about ten seconds; absent where Discord shows its own indicator. */
  typing?(): Promise<void>;
}

/** Nobody gets pinged by what the model writes. */
const NO_PINGS = { parse: [] as const, repliedUser: false };

/**
 * Every message we send or edit in Discord passes here (channel, thread and interaction sinks,
 * live-reply edits, replays), so no path can forget: nobody is pinged (`allowedMentions`
 * empty), and a message whose text holds a link off DISCORD_EMBED_DOMAINS gets
 * SUPPRESS_EMBEDS, so Discord fetches no preview of a URL the model chose.
 */
export function toDiscordOptions(m: OutgoingMessage, embedDomains: readonly string[]) {
  const suppress = !allLinksOn(m.content, embedDomains);
  return {
    content: m.content,
    ...(suppress ? { flags: MessageFlags.SuppressEmbeds as const } : {}),
    embeds: m.embeds,
    components: m.components,
    files: m.files.map((f) => ({
      attachment: f.data,
      name: f.name,
      ...(f.description ? { description: f.description } : {}),
    })),
    allowedMentions: NO_PINGS,
  } satisfies MessageCreateOptions;
}

export const warning = (text: string) => truncate(`⚠️ ${text}`, LIMITS.content);
export const plain = (content: string): OutgoingMessage => ({ content, embeds: [], components: [], files: [] });
const refOf = (m: Message): MessageRef => ({ id: m.id, messageId: m.id });

/**
 * Nonces for one turn's channel messages, by position (`start`: how many an earlier run recorded).
 * Sent with `enforce_nonce`, Discord returns the message already created with that nonce in the
 * last few minutes instead of creating another: a replay whose dead run sent a message but died
 * before recording its id gets that message back, not a second answer. At most 25 characters.
 */
export function turnNonces(turnId: string, start = 0): () => string {
  const base = createHash('sha256').update(turnId).digest('base64url').slice(0, 20);
  let position = start;
  return () => `${base}${(position++).toString(36)}`;
}

/** Posts in a channel we can write to (a DM, or a thread we are part of). */
export function channelSink(
  channel: SendableChannels,
  embedDomains: readonly string[],
  nonce?: () => string,
): ReplySink {
  const options = (m: OutgoingMessage) => toDiscordOptions(m, embedDomains);
  const sent = new Map<string, Message>();
  const send = async (m: OutgoingMessage) => {
    const message = await channel.send({
      ...options(m),
      ...(nonce ? { nonce: nonce(), enforceNonce: true } : {}),
    });
    sent.set(message.id, message);
    return refOf(message);
  };
  const edit = async (ref: MessageRef, m: OutgoingMessage) => {
    const message = sent.get(ref.messageId);
    if (message) await message.edit(options(m));
    else await channel.messages.edit(ref.messageId, options(m));
    return ref;
  };
  return {
    open: send,
    send,
    edit,
    async remove(ref) {
      await channel.messages.delete(ref.messageId);
      sent.delete(ref.messageId);
    },
    async fail(text, live) {
      if (live) await edit(live, plain(warning(text)));
      else await send(plain(warning(text)));
    },
    notice: async (text) => void (await send(plain(warning(text)))),
    typing: () => channel.sendTyping(),
  };
}

/** A guild channel where a mention is answered in a thread started from it. */
export type ThreadParent = TextChannel | NewsChannel;

/** Discord: "A thread has already been created for this message". */
const THREAD_ALREADY_CREATED = 160004;

/**
 * Answers a mention in a plain channel in a new thread started from the message (by id: the
 * thread's id is the message's). The thread is created when the first output is ready, so a
 * refusal (e.g. an unknown server) is a plain reply instead of a thread. Its id is recorded at
 * once (`onThread`), so a replay passes it as `threadId` and answers there instead of starting
 * another. Without the right to create threads, it answers in the channel.
 */
export function threadSink(opts: {
  parent: ThreadParent;
  originId: string;
  threadName: string;
  /** The thread an earlier run of this turn started. */
  threadId?: string;
  /** Finds a thread by id (the client's channel manager). */
  fetchThread: (id: string) => Promise<unknown>;
  onThread: (id: string) => Promise<void>;
  log: Logger;
  nonce?: () => string;
  /** DISCORD_EMBED_DOMAINS */
  embedDomains: readonly string[];
}): ReplySink {
  const { parent, log, embedDomains } = opts;
  let inner: ReplySink | undefined;
  const existing = async (id: string): Promise<ReplySink | undefined> => {
    const thread = (await opts
      .fetchThread(id)
      .catch((err: unknown) => log.warn({ err, threadId: id }, 'could not find the thread of an earlier run'))) as
      SendableChannels | null | undefined;
    return thread?.isSendable() ? channelSink(thread, embedDomains, opts.nonce) : undefined;
  };
  const start = async (): Promise<ReplySink> => {
    try {
      const thread = await parent.threads.create({ name: opts.threadName, startMessage: opts.originId });
      await opts.onThread(thread.id);
      return channelSink(thread, embedDomains, opts.nonce);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      // Started by a run that died before recording it: the thread carries the message's id.
      const found = code === THREAD_ALREADY_CREATED ? await existing(opts.originId) : undefined;
      if (found) {
        await opts.onThread(opts.originId);
        return found;
      }
      log.warn({ err, channelId: parent.id, code }, 'could not start a thread; answering in the channel');
      return channelSink(parent, embedDomains, opts.nonce);
    }
  };
  const target = async (): Promise<ReplySink> => {
    inner ??= (opts.threadId ? await existing(opts.threadId) : undefined) ?? (await start());
    return inner;
  };
  return {
    open: async (m) => (await target()).open(m),
    send: async (m) => (await target()).send(m),
    edit: async (ref, m) => (await target()).edit(ref, m),
    remove: async (ref) => (await target()).remove!(ref),
    async fail(text, live) {
      if (inner || opts.threadId || live) return (await target()).fail(text, live);
      await parent.send({
        content: warning(text),
        reply: { messageReference: opts.originId, failIfNotExists: false },
        allowedMentions: NO_PINGS,
      });
    },
    notice: async (text) => (await target()).notice(text),
    typing: () => (inner ? inner.typing!() : parent.sendTyping()),
  };
}

/** Interaction tokens live 15 minutes; past this margin, new messages go to the channel instead. */
export const INTERACTION_WINDOW_MS = 15 * 60_000 - 30_000;

/** The webhook calls we make (discord.js's InteractionWebhook; its typings omit deleteMessage). */
export type InteractionHook = Pick<InteractionWebhook, 'send' | 'editMessage'> & {
  deleteMessage(message: string): Promise<void>;
};

/**
 * Answers an interaction through its webhook (the application id and the interaction token, so
 * any replica can): a slash command fills in its deferred reply (`@original`), a button click
 * posts a follow-up. Errors are ephemeral follow-ups. Once the token is about to expire, the
 * answer moves to the channel: a message that can no longer be edited is replaced by a new
 * one, which later edits then change.
 */
export function interactionSink(opts: {
  webhook: InteractionHook;
  /** A slash command: its deferred reply is ours to fill in. A button click: answers are follow-ups. */
  ownsOriginal: boolean;
  /** The interaction's channel, for answers past the token's window. */
  channel: () => Promise<SendableChannels | undefined>;
  interactionId: string;
  receivedAt: number;
  now?: () => number;
  log: Logger;
  /** DISCORD_EMBED_DOMAINS */
  embedDomains: readonly string[];
}): ReplySink {
  const { webhook, ownsOriginal, embedDomains } = opts;
  const options = (m: OutgoingMessage) => toDiscordOptions(m, embedDomains);
  const now = opts.now ?? Date.now;
  let fallback: Promise<ReplySink | undefined> | undefined;
  const channel = () =>
    (fallback ??= opts.channel().then(
      (c) => (c ? channelSink(c, embedDomains) : undefined),
      (err: unknown) => (opts.log.warn({ err }, 'could not find the interaction’s channel'), undefined),
    ));
  const inWindow = () => now() - opts.receivedAt < INTERACTION_WINDOW_MS;
  /** Interaction messages replaced in the channel after the window, by their `id`. */
  const moved = new Map<string, MessageRef>();
  const followUp = async (m: OutgoingMessage) => refOf(await webhook.send(options(m)));
  const ephemeral = (text: string) =>
    webhook.send({ content: warning(text), flags: MessageFlags.Ephemeral, allowedMentions: NO_PINGS });
  const inChannel = async (m: OutgoingMessage) => {
    const sink = await channel();
    if (!sink) throw new Error('the interaction token expired and the channel is not reachable');
    opts.log.warn({ interactionId: opts.interactionId }, 'interaction token window over; posting in the channel');
    const ref = await sink.send(m);
    moved.set(ref.id, ref);
    return ref;
  };
  const notice = async (text: string) => {
    if (inWindow()) await ephemeral(text);
    else await (await channel())?.send(plain(warning(text)));
  };
  return {
    async open(m) {
      if (!inWindow()) return inChannel(m);
      if (!ownsOriginal) return followUp(m);
      const message = await webhook.editMessage('@original', options(m));
      return { id: '@original', messageId: message.id };
    },
    send: (m) => (inWindow() ? followUp(m) : inChannel(m)),
    async edit(ref, m) {
      const replacement = moved.get(ref.id);
      if (replacement) return (await channel())!.edit(replacement, m);
      if (inWindow()) return { id: ref.id, messageId: (await webhook.editMessage(ref.id, options(m))).id };
      const ref2 = await inChannel(m);
      moved.set(ref.id, ref2);
      return ref2;
    },
    async remove(ref) {
      const replacement = moved.get(ref.id);
      if (replacement) return (await channel())!.remove!(replacement);
      await webhook.deleteMessage(ref.id);
    },
    async fail(text, live) {
      if (!inWindow()) return notice(text);
      // Half-written progress is removed; the error is shown only to the person who asked.
      if (live)
        await webhook
          .deleteMessage(live.id)
          .catch((err: unknown) => opts.log.warn({ err }, 'could not remove the progress message'));
      else if (ownsOriginal)
        await webhook
          .deleteMessage('@original')
          .catch((err: unknown) => opts.log.warn({ err }, 'could not remove the deferred reply'));
      await ephemeral(text);
    },
    notice,
  };
}
