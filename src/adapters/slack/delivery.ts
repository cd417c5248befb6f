import type { Logger } from '../../telemetry/logger.js';
import type { webApi } from '@slack/bolt';
import { untilAborted, type Delivery } from '../../inbox/index.js';
import { heldForRetry } from '../retry-turn.js';
import { threadTitle } from './assistant-copy.js';
import { deliverCommand } from './command-delivery.js';
import type { HandlerDeps, SlackWork } from './handler-deps.js';
import { inertMessage, type SlackAudience } from './inert.js';
import { postPrivately, respondVia } from './notices.js';
import { noticeMessage, renderReply } from './render.js';
import { findMarker, formatMarker, parseMarkers } from './replay-marker.js';
import { audienceOf, runTurn } from './run-turn.js';
import { slackErrorCode } from './slack-errors.js';
import { slackThreadContext } from './thread-context.js';
import type { IncomingMessage } from '../../contract/turn.js';
import { isApprovalAction } from '../../agent/approval-turn.js';
import { isExpiryAction } from '../../agent/approval-sweep.js';
import { groupCheck, replaceApprovalMessage } from './approvals.js';
import { deliverFeedback } from './feedback.js';

/**
 * Answers one inbox entry, on whichever replica runs it: the workspace's client, then by kind:
 * a command opens its thread first, a click on an ephemeral message is answered privately, and
 * a message or a click in a thread is answered in that thread.
 */
export async function deliverSlackWork(d: Delivery<SlackWork>, deps: HandlerDeps): Promise<void> {
  const work = d.entry.payload;
  if (work.kind === 'feedback') return deliverFeedback(d, work, deps);
  const workspace = work.kind === 'command' ? work.request.workspaceId : work.message.workspaceId;
  const client = await deps.clients.for(work.auth ?? { teamId: workspace });
  if (!client) {
    // Uninstalled (or its token revoked) after the event was recorded: nobody can answer there.
    deps.log.warn(
      { entry: d.entry.id, team: work.auth?.teamId ?? workspace },
      'slack entry dropped: the workspace has no installation any more',
    );
    return;
  }
  if (work.kind === 'command') return deliverCommand(d, work, client, deps);
  if (work.kind === 'action' && work.ephemeral) return deliverEphemeralClick(d, work, client, deps);
  return deliverInThread(d, work, client, deps);
}

/** A message, or a click on a message of a thread: the turn is written into that thread. */
async function deliverInThread(
  d: Delivery<SlackWork>,
  work: Extract<SlackWork, { kind: 'message' | 'action' }>,
  client: webApi.WebClient,
  deps: HandlerDeps,
): Promise<void> {
  const { log } = deps;
  let message = withThreadContext(work, client, deps);
  const approval = work.kind === 'action' && isApprovalAction(message.action);
  const expiry = approval && isExpiryAction(message.action);
  // An approval click: whether the clicker is in the approvers' user group is asked only if one may approve.
  const inGroup = approval && !expiry ? groupCheck(deps, client, message) : undefined;
  if (inGroup) message = { ...message, inGroup };
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
      ...(approval && work.kind === 'action' && work.responseUrl
        ? { replaceClicked: replaceVia(work.responseUrl, log) }
        : {}),
      // The sweep's expiry entry has no click: its approval message is found in the thread.
      ...(expiry
        ? {
            replaceClicked: replaceApprovalMessage(
              client,
              { channel: message.channelId, threadTs: message.threadId, approvalId: message.action?.value ?? '' },
              log,
            ),
          }
        : {}),
      audience: await audienceOf(deps, message, work.kind === 'message' ? (work.mentions ?? []) : []),
    },
    deps,
  );
}

/** A message in a thread gets the thread before it (fetched by the core when the turn runs, only what is new). */
function withThreadContext(
  work: Extract<SlackWork, { kind: 'message' | 'action' }>,
  client: webApi.WebClient,
  deps: HandlerDeps,
): IncomingMessage {
  const { message } = work;
  if (work.kind !== 'message' || !work.ts || !deps.names) return message;
  const threadContext = slackThreadContext({
    client: deps.contextClient?.(client) ?? client,
    names: deps.names,
    state: deps.state,
    workspaceId: message.workspaceId,
    channel: message.channelId,
    threadTs: message.threadId,
    ts: work.ts,
    ...(work.bot?.userId ? { botUserId: work.bot.userId } : {}),
    ...(work.bot?.id ? { botId: work.bot.id } : {}),
  });
  return threadContext ? { ...message, threadContext } : message;
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
  const turn = heldForRetry(d, (signal, options) => deps.agent.handle(message, signal, options));
  for await (const event of untilAborted(turn.events, turn.signal)) {
    if (event.type === 'reply')
      for (const m of renderReply(event.reply).messages) bodies.push(inertMessage({ ...m }, audience));
    else if (event.type === 'error' && event.notify !== false)
      bodies.push(inertMessage({ ...noticeMessage(event.message) }, audience));
  }
  turn.rethrow();
  for (const body of bodies) await postPrivately(work.responseUrl, body, log);
  await d.record(formatMarker({ kind: 'delivered' })).catch(() => {});
}

/** Replaces the clicked message through the click's response_url (an approval message once decided). */
function replaceVia(responseUrl: string, log: Logger): (body: object) => Promise<void> {
  return (body) => postPrivately(responseUrl, { replace_original: true, ...body }, log);
}
