import type { SendableChannels } from 'discord.js';
import type { TurnEvent } from '../../contract/turn.js';
import type { Logger } from '../../telemetry/logger.js';
import type { OutgoingMessage } from './render.js';
import { channelSink, plain, type MessageRef, type ReplySink } from './sinks.js';

/**
 * Approval messages of interactions go out as the bot's own channel messages (issue 43).
 *
 * A message sent through an interaction's webhook can be edited only with that interaction's
 * token, which lives 15 minutes: as long as APPROVAL_TIMEOUT by default. An approval nobody
 * decides would keep its buttons for good once the token lapsed. The bot's own message can be
 * edited with the bot token at any time, so the expiry always takes its buttons away and says so.
 * The interaction's own reply (a slash command's deferred answer) points to it. Where the bot
 * cannot post in the channel (no access there), the webhook is used as before, and logged.
 */

/** A ref of a message this wrapper posted in the channel: `chan:<snowflake>` (recorded so a replay edits it). */
const CHANNEL_REF = 'chan:';
/** What the interaction's reply says once the approval moved to the channel. */
export const APPROVAL_POINTER = 'I need an OK before I go on: the request and its buttons are in the message below.';

export interface ApprovalChannel {
  /** The sink to answer the interaction through. */
  sink: ReplySink;
  /** The turn's events, watched for `approval_required` (from then on, messages with buttons go to the channel). */
  watch(events: AsyncIterable<TurnEvent>): AsyncIterable<TurnEvent>;
  /** The message that really carries the buttons of `ref` (the channel's, when it moved). */
  actual(ref: MessageRef): MessageRef;
}

export function approvalsInChannel(opts: {
  inner: ReplySink;
  /** A slash command owns its deferred reply (filled with the pointer); a click's answers are follow-ups. */
  ownsOriginal: boolean;
  channel: () => Promise<SendableChannels | undefined>;
  embedDomains: readonly string[];
  log: Logger;
  /** Records a channel message posted in place of an edit (open and send are recorded by the turn). */
  record?: (ref: string) => Promise<void>;
}): ApprovalChannel {
  const { inner, log } = opts;
  let asking = false;
  let target: Promise<ReplySink | undefined> | undefined;
  const moved = new Map<string, MessageRef>();
  const channel = () =>
    (target ??= opts.channel().then(
      (c) => (c ? channelSink(c, opts.embedDomains) : undefined),
      (err: unknown) => (log.warn({ err }, 'could not find the interaction’s channel for an approval'), undefined),
    ));
  const carriesButtons = (m: OutgoingMessage) => asking && m.components.length > 0;
  /** Posts in the channel with the bot token; undefined when the bot cannot (the webhook is used then). */
  const inChannel = async (m: OutgoingMessage): Promise<MessageRef | undefined> => {
    const sink = await channel();
    if (sink) {
      try {
        const ref = await sink.send(m);
        return { id: `${CHANNEL_REF}${ref.messageId}`, messageId: ref.messageId };
      } catch (err) {
        log.warn(
          { err, code: (err as { code?: unknown }).code },
          'could not post the approval in the channel; sent through the interaction (its buttons outlive its token)',
        );
        return undefined;
      }
    }
    log.warn(
      'approval sent through the interaction: the bot cannot post in its channel (its buttons outlive its token)',
    );
    return undefined;
  };
  const channelRef = (ref: MessageRef): MessageRef | undefined =>
    ref.id.startsWith(CHANNEL_REF) ? { id: ref.id, messageId: ref.id.slice(CHANNEL_REF.length) } : undefined;

  const sink: ReplySink = {
    async open(m) {
      if (!carriesButtons(m)) return inner.open(m);
      const posted = await inChannel(m);
      if (!posted) return inner.open(m);
      if (opts.ownsOriginal) await inner.open(plain(APPROVAL_POINTER));
      return posted;
    },
    async send(m) {
      if (!carriesButtons(m)) return inner.send(m);
      return (await inChannel(m)) ?? inner.send(m);
    },
    async edit(ref, m) {
      const own = channelRef(ref);
      if (own) {
        const sink = await channel();
        if (!sink) throw new Error('the channel of an earlier approval message is not reachable');
        await sink.edit(own, m);
        return ref;
      }
      if (!carriesButtons(m)) return inner.edit(ref, m);
      const posted = await inChannel(m);
      if (!posted) return inner.edit(ref, m);
      await opts
        .record?.(posted.id)
        .catch((err: unknown) => log.warn({ err }, 'could not record the approval message in the inbox'));
      await inner.edit(ref, plain(APPROVAL_POINTER));
      moved.set(ref.id, posted);
      return posted;
    },
    async remove(ref) {
      const own = channelRef(ref);
      if (!own) return inner.remove?.(ref);
      await (await channel())?.remove?.(own);
    },
    fail: (text, live) => inner.fail(text, live),
    notice: (text) => inner.notice(text),
  };
  return {
    sink,
    async *watch(events) {
      for await (const event of events) {
        if (event.type === 'approval_required') asking = true;
        yield event;
      }
    },
    actual: (ref) => moved.get(ref.id) ?? channelRef(ref) ?? ref,
  };
}
