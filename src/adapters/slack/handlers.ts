import { Assistant, type App, type Context, type webApi } from '@slack/bolt';
import type { Agent } from '../../agent/agent.js';
import type { IncomingMessage } from '../../contract/turn.js';
import type { Logger } from '../../logger.js';
import {
  INBOX_UNAVAILABLE_TEXT as UNAVAILABLE,
  THREAD_QUEUE_FULL_TEXT,
  slackTsOrder,
  untilAborted,
  type AddResult,
  type Delivery,
  type Inbox,
} from '../../turns/index.js';
import { greetingMessage, SUGGESTED_PROMPTS, SUGGESTED_PROMPTS_TITLE, threadTitle } from './assistant-copy.js';
import {
  normalizeAction,
  normalizeCommand,
  normalizeMessageEvent,
  type CommandRequest,
  type SlackContext,
} from './normalize.js';
import { inertMessage, type SlackAudience } from './inert.js';
import { noticeMessage, renderReply } from './render.js';
import { explainSlackError, slackErrorCode } from './slack-errors.js';
import type { SlackState } from './slack-state.js';
import { escapeMrkdwn } from './text.js';
import { truncate } from '../../reply/text.js';
import { postsOfEarlierRun } from './thread-poster.js';
import { findMarker, formatMarker, parseMarkers } from './replay-marker.js';
import { TurnWriter, type ThreadTarget, type WriterOptions } from './turn-writer.js';
import type { SlackRoles } from './user-roles.js';
import type { SlackAuth, SlackClients } from './oauth.js';

export interface HandlerDeps {
  agent: Agent;
  state: SlackState;
  inbox: Inbox;
  /** The Web API client of each workspace (one bot token, or each OAuth installation's). */
  clients: SlackClients;
  /** OAuth: removes a workspace's installation when Slack says the app was uninstalled or its bot token revoked. */
  uninstall?: (auth: SlackAuth) => Promise<void>;
  log: Logger;
  maxPerThread: number;
  /** Guest or member (users.info, cached), decided when a turn runs. */
  roles: SlackRoles;
  /** SLACK_UNFURL_DOMAINS: links there may unfurl; every other link is posted with unfurling off. */
  unfurlDomains: readonly string[];
  writer?: Omit<WriterOptions, 'log'>;
}

/** What the Slack adapter records in the inbox for one event: enough to answer it on any replica. */
export type SlackWork = (
  | { kind: 'message'; message: IncomingMessage; userTeamId?: string; assistant: boolean; mentions?: string[] }
  | { kind: 'command'; request: CommandRequest; responseUrl?: string }
  | { kind: 'action'; message: IncomingMessage; userTeamId?: string; responseUrl?: string; ephemeral?: boolean }
) & {
  /** Whose installation answers (Bolt's authorize query); absent in entries recorded before OAuth existed. */
  auth?: SlackAuth;
};

/**
 * Every Slack entry point: mentions, channel-thread follow-ups, DMs, AI-app threads, slash
 * commands and button clicks. Each is normalized, filtered and recorded in the inbox before it
 * is acked: over HTTP Bolt answers Slack only once the listener returns (processBeforeResponse),
 * so a failed write is a 500 that Slack retries. The inbox then runs `deliver`, once the
 * returned function has registered it (when the adapter has started).
 */
export function registerHandlers(app: App, deps: HandlerDeps): () => void {
  const { state, log, inbox } = deps;
  /** Our own notices mention nobody. */
  const nobody: SlackAudience = { people: new Set(), unfurlDomains: deps.unfurlDomains };

  /** `ts`: Slack's timestamp of the message or click, the thread's order (absent: arrival order). */
  const enqueue = (id: string, thread: string, work: SlackWork, ts?: string): Promise<AddResult> => {
    const order = slackTsOrder(ts);
    return inbox.add({
      id: `slack:${id}`,
      platform: 'slack',
      thread: `slack:${thread}`,
      payload: work,
      receivedAt: Date.now(),
      ...(order !== undefined ? { order } : {}),
    });
  };

  const onMessage = async (
    raw: unknown,
    body: EventBody,
    context: Context,
    client: webApi.WebClient,
    assistant: boolean,
  ): Promise<void> => {
    const decision = normalizeMessageEvent(
      raw,
      slackContext(context, body),
      typeof body.event_id === 'string' ? body.event_id : undefined,
    );
    if (decision.kind === 'ignore') {
      log.debug({ reason: decision.reason }, 'slack message ignored');
      return;
    }
    const { message } = decision;
    const inChannel = !message.isDirect;
    // Channel messages reach us for every post in channels we are in: answer mentions and followed threads only.
    if (inChannel && !decision.mentionsBot) {
      const threadTs = (raw as { thread_ts?: string }).thread_ts;
      if (!threadTs || !(await state.follows(message.workspaceId, message.channelId, threadTs))) return;
    }
    // The message's own key (channel + ts): a retry and the app_mention/message twin share it.
    const id = decision.dedupKeys.at(-1)!;
    const stamped = raw as { ts?: unknown; event_ts?: unknown };
    const ts =
      typeof stamped.ts === 'string' ? stamped.ts : typeof stamped.event_ts === 'string' ? stamped.event_ts : undefined;
    const added = await enqueue(
      id,
      `${message.workspaceId}:${message.channelId}:${message.threadId}`,
      {
        kind: 'message',
        message,
        userTeamId: decision.userTeamId,
        assistant,
        mentions: decision.mentions,
        auth: authOf(context),
      },
      ts,
    );
    if (added === 'duplicate') {
      log.info({ key: id, retryNum: context.retryNum }, 'slack duplicate event dropped');
      return;
    }
    if (added === 'full') {
      // Not awaited: over HTTP the ack waits for this listener.
      void tellThread(client, message.channelId, message.threadId, THREAD_QUEUE_FULL_TEXT(deps.maxPerThread));
      return;
    }
    // Not awaited: the ack does not wait for it (follow-ups arrive seconds later; it logs its own failure).
    if (inChannel) void state.follow(message.workspaceId, message.channelId, message.threadId);
  };

  const tellThread = async (client: webApi.WebClient, channel: string, threadTs: string, text: string) => {
    try {
      await client.chat.postMessage({ channel, thread_ts: threadTs, ...inertMessage(noticeMessage(text), nobody) });
    } catch (err) {
      log.warn({ code: slackErrorCode(err), channel }, 'could not post a notice in the thread');
    }
  };

  app.assistant(
    new Assistant({
      threadStarted: async ({ event, body, say, setSuggestedPrompts }) => {
        const { channel_id, thread_ts } = event.assistant_thread;
        if (
          !(await state.firstTime([
            typeof body.event_id === 'string' ? `event:${body.event_id}` : `started:${channel_id}:${thread_ts}`,
          ]))
        )
          return;
        try {
          await say(greetingMessage(event.assistant_thread.user_id));
          await setSuggestedPrompts({ prompts: SUGGESTED_PROMPTS.slice(0, 4), title: SUGGESTED_PROMPTS_TITLE });
        } catch (err) {
          const code = slackErrorCode(err);
          log.warn({ code, channel: channel_id }, `slack assistant greeting failed: ${code}`);
        }
      },
      userMessage: async ({ message, body, context, client }) => onMessage(message, body, context, client, true),
    }),
  );

  app.event('app_mention', async ({ event, body, context, client }) => onMessage(event, body, context, client, false));
  app.event('message', async ({ event, body, context, client }) => onMessage(event, body, context, client, false));

  // The app left a workspace (or lost its bot token there): OAuth forgets the installation.
  app.event('app_uninstalled', async ({ body, context }) => {
    const auth = authOf(context, body);
    log.warn({ team: auth.teamId, enterprise: auth.enterpriseId }, 'slack app uninstalled from a workspace');
    await deps.uninstall?.(auth);
  });
  app.event('tokens_revoked', async ({ event, body, context }) => {
    if (!event.tokens.bot?.length) return;
    const auth = authOf(context, body);
    log.warn({ team: auth.teamId, enterprise: auth.enterpriseId }, 'slack bot token revoked in a workspace');
    await deps.uninstall?.(auth);
  });

  app.command(/^\/\S+$/, async ({ command, ack, context }) => {
    const req = normalizeCommand(command, slackContext(context));
    if (!req) return ack();
    if (!req.text && req.command.name === 'ask')
      return ack({
        response_type: 'ephemeral',
        text: 'Ask me something after the command, e.g. `/ask which campaigns ran last week?`',
      });
    try {
      // A command opens its own thread: nothing to order it behind.
      await enqueue(req.dedupKey, `command:${req.dedupKey}`, {
        kind: 'command',
        request: req,
        responseUrl: command.response_url,
        auth: authOf(context),
      });
    } catch (err) {
      log.error({ err, command: req.command.name }, 'slack command not recorded');
      return ack({ response_type: 'ephemeral', text: UNAVAILABLE });
    }
    await ack();
  });

  app.action({ type: 'block_actions' }, async ({ ack, body, context }) => {
    const n = normalizeAction(body, slackContext(context));
    if (!n) return ack();
    const { message } = n;
    const responseUrl = (body as { response_url?: string }).response_url;
    let added: AddResult;
    try {
      const actionTs = (body as { actions?: { action_ts?: unknown }[] }).actions?.[0]?.action_ts;
      added = await enqueue(
        n.dedupKey,
        `${message.workspaceId}:${message.channelId}:${message.threadId}`,
        {
          kind: 'action',
          message,
          userTeamId: n.userTeamId,
          responseUrl,
          ...(n.ephemeral ? { ephemeral: true } : {}),
          auth: authOf(context),
        },
        typeof actionTs === 'string' ? actionTs : undefined,
      );
    } catch (err) {
      log.error({ err }, 'slack button click not recorded');
      await ack();
      if (responseUrl) void respondVia(responseUrl, log)(UNAVAILABLE);
      return;
    }
    await ack();
    if (added === 'full' && responseUrl) void respondVia(responseUrl, log)(THREAD_QUEUE_FULL_TEXT(deps.maxPerThread));
    else if (added === 'added' && !message.isDirect)
      void state.follow(message.workspaceId, message.channelId, message.threadId);
  });

  app.error(async (error) => {
    const original = (error as { original?: unknown }).original ?? error;
    log.error({ code: slackErrorCode(original), err: original }, 'slack listener failed');
    // Not recorded: fail the request, so Slack retries it (over HTTP a 500; nothing was acked).
    if (original instanceof Error && original.name === 'InboxUnavailableError') throw original;
  });

  return () => inbox.deliver<SlackWork>('slack', (d) => deliver(d, deps));
}

/** Answers one inbox entry: the turn's events rendered into its Slack thread. */
async function deliver(d: Delivery<SlackWork>, deps: HandlerDeps): Promise<void> {
  const work = d.entry.payload;
  const { log } = deps;
  const workspace = work.kind === 'command' ? work.request.workspaceId : work.message.workspaceId;
  const client = await deps.clients.for(work.auth ?? { teamId: workspace });
  if (!client) {
    // Uninstalled (or its token revoked) after the event was recorded: nobody can answer there.
    log.warn(
      { entry: d.entry.id, team: work.auth?.teamId ?? workspace },
      'slack entry dropped: the workspace has no installation any more',
    );
    return;
  }
  if (work.kind === 'command') return deliverCommand(d, work, client, deps);
  if (work.kind === 'action' && work.ephemeral) return deliverEphemeralClick(d, work, client, deps);
  const { message } = work;
  // An AI-app thread is named after its first question.
  if (
    work.kind === 'message' &&
    work.assistant &&
    d.attempt === 1 &&
    message.text &&
    (await deps.state.firstInThread(message.channelId, message.threadId))
  ) {
    await client.assistant.threads
      .setTitle({ channel_id: message.channelId, thread_ts: message.threadId, title: threadTitle(message.text) })
      .catch((err: unknown) => log.debug({ code: slackErrorCode(err) }, 'assistant.threads.setTitle refused'));
  }
  const respond = work.kind === 'action' && work.responseUrl ? respondVia(work.responseUrl, log) : undefined;
  await runTurn(
    d,
    message,
    {
      client,
      channel: message.channelId,
      threadTs: message.threadId,
      userId: message.userId,
      userTeamId: work.userTeamId,
      status: true,
      ...(respond ? { respond } : {}),
      audience: await audienceOf(deps, message, work.kind === 'message' ? (work.mentions ?? []) : []),
    },
    deps,
  );
}

/**
 * A click on a button of an ephemeral message (one only the clicker sees): the ephemeral's ts is
 * no message of the channel, so there is no thread to answer in. The answer goes back privately
 * through the click's response_url (valid 30 minutes), rendered and made inert like any other.
 */
async function deliverEphemeralClick(
  d: Delivery<SlackWork>,
  work: Extract<SlackWork, { kind: 'action' }>,
  client: webApi.WebClient,
  deps: HandlerDeps,
): Promise<void> {
  const { log } = deps;
  if (findMarker(parseMarkers(d.recorded), 'delivered')) return;
  if (!work.responseUrl) {
    log.warn({ entry: d.entry.id }, 'slack click on an ephemeral message without a response_url: nowhere to answer');
    return;
  }
  const message = { ...work.message, role: await deps.roles.of(client, work.message.workspaceId, work.message.userId) };
  const audience: SlackAudience = { people: new Set([message.userId]), unfurlDomains: deps.unfurlDomains };
  const bodies: object[] = [];
  for await (const event of untilAborted(deps.agent.handle(message, d.signal), d.signal)) {
    if (event.type === 'reply')
      for (const m of renderReply(event.reply).messages) bodies.push(inertMessage({ ...m }, audience));
    else if (event.type === 'error' && event.notify !== false)
      bodies.push(inertMessage({ ...noticeMessage(event.message) }, audience));
  }
  for (const body of bodies) await postPrivately(work.responseUrl, body, log);
  await d.record(formatMarker({ kind: 'delivered' })).catch(() => {});
}

/** A slash command: its visible root message opens the thread (once, even on a replay), then the turn. */
async function deliverCommand(
  d: Delivery<SlackWork>,
  work: Extract<SlackWork, { kind: 'command' }>,
  client: webApi.WebClient,
  deps: HandlerDeps,
): Promise<void> {
  const { request: req } = work;
  const { log } = deps;
  const say = work.responseUrl ? respondVia(work.responseUrl, log) : async () => undefined;
  // A slash command's visible root message is recorded so a replay does not post it again.
  let rootTs = findMarker(parseMarkers(d.recorded), 'root')?.ts;
  if (!rootTs) {
    try {
      const root = await client.chat.postMessage({
        channel: req.channelId,
        ...inertMessage(
          {
            text: truncate(`<@${req.userId}> used /${req.command.name}: ${req.text}`, 3_000),
            blocks: [
              {
                type: 'section',
                text: {
                  type: 'mrkdwn',
                  text: truncate(
                    `<@${req.userId}> used */${req.command.name}*${req.text ? `: ${escapeMrkdwn(req.text)}` : ''}`,
                    3_000,
                  ),
                },
              },
            ],
          },
          { people: new Set([req.userId]), unfurlDomains: deps.unfurlDomains },
        ),
      });
      rootTs = root.ts;
    } catch (err) {
      const code = slackErrorCode(err);
      log.warn(
        { code, method: 'chat.postMessage', command: req.command.name },
        `slack /${req.command.name} could not open a thread: ${code}`,
      );
      await say(explainSlackError(code) ?? 'I could not reply in this conversation. The error has been logged.');
      return;
    }
    if (!rootTs) return;
    await d.record(formatMarker({ kind: 'root', ts: rootTs }));
  }
  if (!req.isDirect) await deps.state.follow(req.workspaceId, req.channelId, rootTs);
  const message: IncomingMessage = {
    platform: 'slack',
    workspaceId: req.workspaceId,
    ...(req.orgId ? { orgId: req.orgId } : {}),
    channelId: req.channelId,
    threadId: rootTs,
    messageId: rootTs,
    userId: req.userId,
    role: 'guest', // decided in runTurn
    isDirect: req.isDirect,
    text: req.text,
    command: req.command,
  };
  await runTurn(
    d,
    message,
    {
      client,
      channel: req.channelId,
      threadTs: rootTs,
      userId: req.userId,
      userTeamId: req.workspaceId,
      status: true,
      respond: say,
      audience: await audienceOf(deps, message, req.mentions ?? []),
    },
    deps,
  );
}

/**
 * Who the answer may mention and which links may unfurl: the people of this thread (the
 * asker, those this message mentions, and those earlier turns saw), and SLACK_UNFURL_DOMAINS.
 */
async function audienceOf(
  deps: HandlerDeps,
  message: IncomingMessage,
  mentions: readonly string[],
): Promise<SlackAudience> {
  const people = await deps.state.peopleOf(message.workspaceId, message.channelId, message.threadId, [
    message.userId,
    ...mentions,
  ]);
  return { people, unfurlDomains: deps.unfurlDomains };
}

async function runTurn(
  d: Delivery<SlackWork>,
  message: IncomingMessage,
  target: ThreadTarget,
  deps: HandlerDeps,
): Promise<void> {
  const markers = parseMarkers(d.recorded);
  // Recorded once the whole answer is in Slack: a replay that finds it has nothing left to do.
  if (findMarker(markers, 'delivered')) {
    deps.log.info(
      { platform: 'slack', messageId: message.messageId, attempt: d.attempt },
      'slack turn was already delivered before its runner stopped',
    );
    return;
  }
  const started = performance.now();
  // Every Slack turn passes here: the user's role for the limits comes from Slack, not from the event.
  message = { ...message, role: await deps.roles.of(target.client, message.workspaceId, message.userId) };
  const recorded = markers.filter((m) => m.kind !== 'root' && m.kind !== 'delivered').map(formatMarker);
  const tagged = { ...target, turnId: d.entry.id };
  // A replay whose dead run posted (or started a stream) but died before recording the ts: find
  // its messages by their metadata, and its stream by the intent it recorded first.
  if (d.attempt > 1 && !markers.some((m) => m.kind === 'post' || m.kind === 'stream')) {
    const intent = findMarker(markers, 'stream-intent');
    for (const found of await postsOfEarlierRun(tagged, d.entry.id, deps.log, intent?.at)) {
      const mark = formatMarker({ kind: found.stream ? 'stream' : 'post', ts: found.ts });
      recorded.push(mark);
      await d.record(mark).catch((err: unknown) => deps.log.warn({ err }, 'could not record a found earlier post'));
    }
  }
  const writer = new TurnWriter(tagged, {
    log: deps.log,
    ...deps.writer,
    recorded,
    record: d.record,
  });
  const result = await writer.deliver(untilAborted(deps.agent.handle(message, d.signal), d.signal));
  if (d.signal.aborted) {
    deps.log.info({ platform: 'slack', messageId: message.messageId }, 'slack turn handed back at shutdown');
    return;
  }
  await d
    .record(formatMarker({ kind: 'delivered' }))
    .catch((err: unknown) => deps.log.warn({ err }, 'could not record a delivered Slack turn'));
  deps.log.debug(
    {
      platform: 'slack',
      channel: message.channelId,
      thread: message.threadId,
      messageId: message.messageId,
      attempt: d.attempt,
      ...result,
      ms: Math.round(performance.now() - started),
      waitedMs: Math.max(0, Date.now() - d.entry.receivedAt - Math.round(performance.now() - started)),
    },
    'slack turn delivered',
  );
}

/** The parts of an Events API envelope we read. */
interface EventBody {
  event_id?: unknown;
  team_id?: unknown;
  enterprise_id?: unknown;
}

/** The installation Bolt authorized the event with: the same query answers it later, on any replica. */
function authOf(context: Context, body: EventBody = {}): SlackAuth {
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const teamId = context.teamId ?? str(body.team_id);
  const enterpriseId = context.enterpriseId ?? str(body.enterprise_id);
  return {
    ...(teamId ? { teamId } : {}),
    ...(enterpriseId ? { enterpriseId } : {}),
    isEnterpriseInstall: context.isEnterpriseInstall ?? false,
  };
}

/** Bolt's context, with the envelope's team as a fallback when `authorizations` lacks it. */
function slackContext(context: Context, body: EventBody = {}): SlackContext {
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  return {
    teamId: context.teamId ?? str(body.team_id),
    enterpriseId: context.enterpriseId ?? str(body.enterprise_id),
    botUserId: context.botUserId,
    botId: context.botId,
  };
}

/**
 * A private note to the person who ran the command or clicked the button, through the
 * interaction's `response_url` (valid for 30 minutes, so it works on a replay too).
 */
function respondVia(responseUrl: string, log: Logger): (text: string) => Promise<void> {
  return (text) => postPrivately(responseUrl, { text }, log);
}

/** One message to the person behind an interaction, through its response_url (ephemeral, next to the original). */
async function postPrivately(responseUrl: string, message: object, log: Logger): Promise<void> {
  try {
    const res = await fetch(responseUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, ...message }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) log.warn({ status: res.status }, 'slack response_url refused the message');
  } catch (err) {
    log.warn({ err }, 'slack response_url failed');
  }
}
