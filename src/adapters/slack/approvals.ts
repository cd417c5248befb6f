import type { webApi } from '@slack/bolt';
import { LRUCache } from 'lru-cache';
import { expiryAction, startApprovalSweep } from '../../agent/approval-sweep.js';
import type { IncomingMessage } from '../../contract/turn.js';
import type { ApprovalStore, DueApproval } from '../../data/approvals.js';
import type { Logger } from '../../telemetry/logger.js';
import { recordWork, type HandlerDeps, type SlackGroups } from './handler-deps.js';
import { slackErrorCode } from './slack-errors.js';

/**
 * Slack's side of approvals (issue 43) beyond the click: the members of an approvers' user group
 * (`usergroups.users.list`, scope `usergroups:read`, cached briefly), and the sweep's expiry
 * entries (recorded in the inbox like a click; their approval message is found in the thread
 * and updated, since no click brought a response_url).
 */

/** How long a group's member list is trusted: a member removed can approve for at most this long. */
const GROUP_TTL_MS = 60_000;

export function createSlackGroups(): SlackGroups {
  const cache = new LRUCache<string, Set<string>>({ max: 1_000, ttl: GROUP_TTL_MS });
  return {
    async has(client, teamId, group, userId) {
      const key = `${teamId}:${group}`;
      let members = cache.get(key);
      if (!members) {
        const res = await client.usergroups.users.list({ usergroup: group, team_id: teamId });
        members = new Set(res.users ?? []);
        cache.set(key, members);
      }
      return members.has(userId);
    },
  };
}

/** The clicker's user-group check for the turn (the agent asks only when a group may approve). */
export function groupCheck(
  deps: Pick<HandlerDeps, 'groups'>,
  client: webApi.WebClient,
  message: IncomingMessage,
): IncomingMessage['inGroup'] {
  const groups = deps.groups;
  if (!groups) return undefined;
  return (group) => groups.has(client, message.workspaceId, group, message.userId);
}

/**
 * Every replica sweeps the Slack approvals nobody decided in time: each step becomes one inbox
 * entry of its thread (the dedup key is the step's id, so two replicas record it once), which the
 * agent expires (one conditional UPDATE) and answers like a deny. Returns the stop function.
 */
export function startSlackApprovalSweep(
  deps: Pick<HandlerDeps, 'inbox' | 'log'>,
  store: ApprovalStore,
  intervalMs: number,
): () => Promise<void> {
  return startApprovalSweep({
    store,
    platforms: ['slack'],
    intervalMs,
    log: deps.log,
    enqueue: (due) =>
      recordWork(
        deps.inbox,
        `approval-expiry:${due.step_id}`,
        `${due.workspace_id}:${due.channel_id}:${due.thread_id}`,
        {
          kind: 'action',
          message: expiryMessage(due),
          auth: { teamId: due.workspace_id },
        },
      ),
  });
}

/** The synthetic click of an expiry: the asker's thread, no person's action (the agent checks the time). */
function expiryMessage(due: DueApproval): IncomingMessage {
  return {
    platform: 'slack',
    workspaceId: due.workspace_id,
    channelId: due.channel_id,
    threadId: due.thread_id,
    messageId: `approval-expiry:${due.step_id}`,
    userId: due.asker_id,
    role: 'guest', // decided at delivery (users.info)
    isDirect: due.channel_id.startsWith('D'),
    text: '',
    action: expiryAction(due),
  };
}

/**
 * Updates the approval message of an expiry (found in the thread by its buttons' value, the
 * approval's id): the text says it expired, the buttons go. A failure is logged; the turn goes on.
 */
export function replaceApprovalMessage(
  client: webApi.WebClient,
  where: { channel: string; threadTs: string; approvalId: string },
  log: Logger,
): (body: object) => Promise<void> {
  return async (body) => {
    try {
      const res = await client.conversations.replies({ channel: where.channel, ts: where.threadTs, limit: 200 });
      const found = (res.messages ?? []).find((m) => m.bot_id && hasButtonFor(m.blocks, where.approvalId));
      if (!found?.ts) {
        log.warn({ approvalId: where.approvalId }, 'slack approval message not found in its thread; not updated');
        return;
      }
      await client.chat.update({ channel: where.channel, ts: found.ts, ...(body as { text: string }) });
    } catch (err) {
      log.warn({ code: slackErrorCode(err), approvalId: where.approvalId }, 'slack approval message not updated');
    }
  };
}

function hasButtonFor(blocks: unknown, approvalId: string): boolean {
  if (!Array.isArray(blocks)) return false;
  return blocks.some((b: { elements?: { action_id?: unknown; value?: unknown }[] }) =>
    (b.elements ?? []).some(
      (e) => typeof e.action_id === 'string' && e.action_id.startsWith('approval.') && e.value === approvalId,
    ),
  );
}
