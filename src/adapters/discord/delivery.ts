import { ChannelType, InteractionWebhook, type Client } from 'discord.js';
import type { Logger } from '../../telemetry/logger.js';
import { DELIVERED_MARK as DELIVERED, type Delivery, type DeliveryFn } from '../../inbox/index.js';
import { answeredStaysAnswered } from '../answered-turn.js';
import { heldForRetry } from '../retry-turn.js';
import { rememberButtonConversation } from './clicked-buttons.js';
import {
  channelSink,
  interactionSink,
  threadSink,
  turnNonces,
  type InteractionHook,
  type MessageRef,
  type ReplySink,
} from './sinks.js';
import { MESSAGE_MARK, runTurn, type TurnDeps } from './turn.js';
import type { DiscordWork, HandlerDeps } from './work.js';
import { discordThreadContext } from './thread-context.js';
import type { IncomingMessage } from '../../contract/turn.js';
import { isExpiryAction } from '../../agent/approval-sweep.js';
import { expiryChannel, expiryEvents, rememberHook, replaceExpiredApproval } from './approvals.js';
import { approvalsInChannel, type ApprovalChannel } from './approval-channel.js';

type Deps = Pick<
  HandlerDeps,
  'agent' | 'kv' | 'actions' | 'log' | 'editIntervalMs' | 'conversationTtlMs' | 'embedDomains'
>;

/**
 * What a run records in its inbox entry, besides each message it posted (`MESSAGE_MARK`, turn.ts):
 * a mention's thread once it exists, so a replay answers there; and the whole answer once it is
 * in Discord, so a replay that finds it has nothing left to do.
 */
const THREAD_MARK = 'thread:';

/**
 * The inbox's delivery function for Discord entries, answering through `client` on whichever
 * replica runs the entry: the sink is rebuilt from the payload's ids (an interaction's webhook,
 * a mention's new thread, or the channel), then the turn runs into it.
 */
export function createDelivery(deps: Deps): (client: Client) => DeliveryFn<DiscordWork> {
  const { log } = deps;
  const turnDeps: TurnDeps = {
    // An `error` after `done` never reaches the sinks: it would post a warning under the answer.
    agent: {
      handlesAction: (actionId) => deps.agent.handlesAction(actionId),
      served: deps.agent.served,
      feedback: (vote) => deps.agent.feedback(vote),
      handle: (message, signal) => answeredStaysAnswered(deps.agent.handle(message, signal), log),
    },
    actions: deps.actions,
    log,
    editIntervalMs: deps.editIntervalMs,
    onButtons: rememberButtonConversation(deps.kv, deps.conversationTtlMs),
  };

  return (client) => async (delivery) => {
    let d = delivery;
    const entryLog = log.child({ entry: d.entry.id, attempt: d.attempt });
    if (d.recorded.includes(DELIVERED)) {
      entryLog.info('discord turn was already delivered before its runner stopped');
      return;
    }
    // The sweep's entry of an approval nobody decided (issue 43): answered in the conversation's thread or channel.
    const expiry = d.entry.payload.kind === 'message' && isExpiryAction(d.entry.payload.message.action);
    if (expiry && d.entry.payload.kind === 'message') {
      const channelId = await expiryChannel(client, d.entry.payload.message, entryLog);
      d = { ...d, entry: { ...d.entry, payload: { ...d.entry.payload, channelId } } };
    }
    const work = d.entry.payload;
    const earlier = d.recorded
      .filter((r) => r.startsWith(MESSAGE_MARK))
      .map((r) => ({ id: r.slice(MESSAGE_MARK.length), messageId: r.slice(MESSAGE_MARK.length) }));
    const found = await sinkFor(client, d, entryLog, turnNonces(d.entry.id, earlier.length), deps.embedDomains);
    // An interaction's approval message is the bot's own channel message, so its expiry can always edit it.
    const approvals =
      found && work.kind === 'interaction' ? approvalChannelOf(client, d, found, deps, entryLog) : undefined;
    const sink = approvals?.sink ?? found;
    if (!sink) {
      entryLog.warn(
        { channelId: work.kind === 'message' ? work.channelId : work.interaction.channelId },
        'discord entry has nowhere to be answered; dropped',
      );
      return;
    }
    const started = performance.now();
    const message =
      work.kind === 'message' && !expiry
        ? withThreadContext(work, { client, kv: deps.kv, log: entryLog })
        : work.message;
    // Redis or Postgres away before anything was shown: nothing is posted and the inbox runs it again later.
    const turn = heldForRetry(d, (signal, options) =>
      answeredStaysAnswered(deps.agent.handle(message, signal, options), log),
    );
    let events = turn.events;
    if (expiry && work.kind === 'message') {
      const approvalId = work.message.action?.value ?? '';
      const where = { channelId: work.channelId, approvalId };
      const edit = replaceExpiredApproval(client, where, deps.actions, deps.kv, entryLog);
      const told = await expiryEvents(events, edit);
      // Decided meanwhile (a click or another replica's expiry): nothing to post.
      if (!told) return void turn.rethrow();
      events = told;
    }
    if (approvals) events = approvals.watch(events);
    const agent = { ...turnDeps.agent, handle: () => events };
    const hooks = hookRemembered(turnDeps, work, deps.kv, entryLog, approvals?.actual);
    await runTurn({ ...turnDeps, agent, ...hooks }, work.message, sink, {
      signal: turn.signal,
      earlier,
      record: d.record,
    });
    if (d.signal.aborted) return;
    turn.rethrow();
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

/** A message with the conversation before it (fetched by the core when the turn runs, only what is new). */
function withThreadContext(
  work: Extract<DiscordWork, { kind: 'message' }>,
  deps: { client: Client; kv: Deps['kv']; log: Logger },
): IncomingMessage {
  const threadContext = discordThreadContext({
    ...deps,
    channelId: work.channelId,
    originId: work.originId,
    startsThread: Boolean(work.startThread),
    ...(work.reference ? { reference: work.reference } : {}),
  });
  return threadContext ? { ...work.message, threadContext } : work.message;
}

/** Where an entry is answered, or undefined when its channel is gone or not ours to write in. */
async function sinkFor(
  client: Client,
  d: Delivery<DiscordWork>,
  entryLog: Logger,
  nonce: () => string,
  embedDomains: readonly string[],
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
      embedDomains,
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
  if (work.startThread && (channel.type === ChannelType.GuildText || channel.type === ChannelType.GuildAnnouncement)) {
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
      embedDomains,
    });
  }
  return channel.isSendable() ? channelSink(channel, embedDomains, nonce) : undefined;
}

/**
 * A click's or command's buttons also remember the interaction's webhook (an expiry edits through
 * it) unless their message is the bot's own (`actual`: where an approval really went).
 */
function hookRemembered(
  turnDeps: TurnDeps,
  work: DiscordWork,
  kv: Deps['kv'],
  log: Logger,
  actual: (ref: MessageRef) => MessageRef = (ref) => ref,
): Partial<TurnDeps> {
  if (work.kind !== 'interaction') return {};
  const remember = rememberHook(kv, work.interaction);
  return {
    onButtons: async (posted, message) => {
      const ref = actual(posted);
      await turnDeps.onButtons?.(ref, message);
      if (ref !== posted) return;
      await remember(ref).catch((err: unknown) => log.warn({ err }, 'could not remember the interaction’s webhook'));
    },
  };
}

/** The interaction's sink with its approval messages moved to the channel (see approval-channel.ts). */
function approvalChannelOf(
  client: Client,
  d: Delivery<DiscordWork>,
  inner: ReplySink,
  deps: Pick<Deps, 'embedDomains'>,
  log: Logger,
): ApprovalChannel | undefined {
  const work = d.entry.payload;
  if (work.kind !== 'interaction') return undefined;
  return approvalsInChannel({
    inner,
    ownsOriginal: work.interaction.ownsOriginal,
    channel: async () => {
      const channel = await client.channels.fetch(work.interaction.channelId);
      return channel?.isSendable() ? channel : undefined;
    },
    embedDomains: deps.embedDomains,
    log,
    record: (id) => d.record(`${MESSAGE_MARK}${id}`),
  });
}
