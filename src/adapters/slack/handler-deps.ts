import type { webApi } from '@slack/bolt';
import type { Agent } from '../../agent/agent.js';
import type { IncomingMessage } from '../../contract/turn.js';
import type { FeedbackVote } from '../../contract/feedback.js';
import type { Logger } from '../../telemetry/logger.js';
import { slackTsOrder, type AddResult, type Inbox } from '../../inbox/index.js';
import type { CommandRequest } from './normalize.js';
import type { SlackAuth, SlackClients } from './oauth.js';
import type { SlackState } from './slack-state.js';
import type { WriterOptions } from './turn-writer.js';
import type { ChannelSettingsView } from '../channel-settings.js';
import type { SlackNames, SlackRoles } from './user-roles.js';

/** What every Slack listener and delivery is given: built once by the adapter (`index.ts`). */
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
  /** SLACK_API_URL: its host is a file host too (a fake or a proxy), beside files.slack.com. */
  slackApiUrl?: string;
  /** Thread authors' display names (users.info, cached), for the thread before a mention. */
  names?: SlackNames;
  /** The client the thread's reads go through (a 429 fails them at once; see `createContextClients`). */
  contextClient?: (client: webApi.WebClient) => webApi.WebClient;
  /** Members of the approvers' Slack user group (issue 43; `approvals.ts`). */
  groups?: SlackGroups;
  /** Settings per channel (issue 46): `reply_mode: all` channels, `/switchboard settings`. */
  channelSettings?: ChannelSettingsView;
}

/** Members of a Slack user group, per workspace (`usergroups.users.list`, cached briefly). */
export interface SlackGroups {
  /** Whether `userId` is in `group`; throws when Slack will not say (missing scope, unknown group). */
  has(client: webApi.WebClient, teamId: string, group: string, userId: string): Promise<boolean>;
}

/** What the Slack adapter records in the inbox for one event: enough to answer it on any replica. */
export type SlackWork = (
  | {
      kind: 'message';
      message: IncomingMessage;
      userTeamId?: string;
      assistant: boolean;
      mentions?: string[];
      /** The message's ts and the bot's ids, for the thread before it (src/adapters/slack/thread-context.ts). */
      ts?: string;
      bot?: { userId?: string; id?: string };
    }
  | { kind: 'command'; request: CommandRequest; responseUrl?: string }
  | { kind: 'action'; message: IncomingMessage; userTeamId?: string; responseUrl?: string; ephemeral?: boolean }
  /** A vote on an answer, or a thumbs-down's comment (issue 47; `feedback.ts`). */
  | { kind: 'feedback'; vote: FeedbackVote; responseUrl?: string }
) & {
  /** Whose installation answers (Bolt's authorize query); absent in entries recorded before OAuth existed. */
  auth?: SlackAuth;
};

/**
 * Records one event's work in the inbox, before the listener acks. `id` is its dedup key,
 * `thread` the thread it is ordered in; `ts` is Slack's timestamp of the message or click,
 * the thread's order (absent: arrival order).
 */
export function recordWork(inbox: Inbox, id: string, thread: string, work: SlackWork, ts?: string): Promise<AddResult> {
  const order = slackTsOrder(ts);
  return inbox.add({
    id: `slack:${id}`,
    platform: 'slack',
    thread: `slack:${thread}`,
    payload: work,
    receivedAt: Date.now(),
    ...(order !== undefined ? { order } : {}),
  });
}
