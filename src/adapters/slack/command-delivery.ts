import type { webApi } from '@slack/bolt';
import type { IncomingMessage } from '../../contract/turn.js';
import { truncate } from '../../reply/text.js';
import type { Delivery } from '../../inbox/index.js';
import type { HandlerDeps, SlackWork } from './handler-deps.js';
import { inertMessage } from './inert.js';
import { respondVia } from './notices.js';
import { findMarker, formatMarker, parseMarkers } from './replay-marker.js';
import { audienceOf, runTurn } from './run-turn.js';
import { explainSlackError, slackErrorCode } from './slack-errors.js';
import { escapeMrkdwn } from './text.js';

/** A slash command: its visible root message opens the thread (once, even on a replay), then the turn. */
export async function deliverCommand(
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
