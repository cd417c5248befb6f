import type { IncomingMessage } from '../../contract/turn.js';
import { untilAborted, type Delivery } from '../../inbox/index.js';
import { heldForRetry } from '../retry-turn.js';
import type { HandlerDeps, SlackWork } from './handler-deps.js';
import type { SlackAudience } from './inert.js';
import { slackFileFetcher } from './files.js';
import { findMarker, formatMarker, parseMarkers } from './replay-marker.js';
import { postsOfEarlierRun } from './thread-poster.js';
import { TurnWriter, type ThreadTarget } from './turn-writer.js';

/**
 * One turn written into its Slack thread: the asker's role, what an earlier run of this entry
 * recorded (so a replay edits and never re-posts), then the agent's events through a TurnWriter,
 * and `delivered` once the whole answer is in Slack.
 */
export async function runTurn(
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
  // Its files are fetched in the turn with this workspace's bot token, from Slack's file host only.
  if (message.attachments?.length) message.attachmentFetcher = slackFileFetcher(target.client.token, deps.slackApiUrl);
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
  const turn = heldForRetry(
    d,
    (signal, options) => deps.agent.handle(message, signal, options),
    (now) => writer.adopt(now),
  );
  const result = await writer.deliver(untilAborted(turn.events, turn.signal));
  if (d.signal.aborted) {
    deps.log.info({ platform: 'slack', messageId: message.messageId }, 'slack turn handed back at shutdown');
    return;
  }
  // Redis or Postgres away before anything was shown: the inbox runs it again later.
  turn.rethrow();
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

/**
 * Who the answer may mention and which links may unfurl: the people of this thread (the
 * asker, those this message mentions, and those earlier turns saw), and SLACK_UNFURL_DOMAINS.
 */
export async function audienceOf(
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
