import type { Approvers } from '../contract/approvals.js';
import type { IncomingMessage } from '../contract/turn.js';
import type { Logger } from '../telemetry/logger.js';
import { metrics } from '../telemetry/metrics.js';

/**
 * Who may decide an approval (issue 43): the named users, the members of a Slack user group, the
 * holders of a Discord role; with none named, the person who asked, never anyone else.
 */

/** Who may approve, in words for the approval message and a refusal. */
export function approverWords(approvers: Approvers, asker: string): string {
  const named = [
    ...(approvers.users ?? []),
    ...(approvers.slackGroup ? [`members of the Slack user group ${approvers.slackGroup}`] : []),
    ...(approvers.discordRole ? [`holders of the Discord role ${approvers.discordRole}`] : []),
  ];
  return named.length ? named.join(', ') : `the person who asked (${asker})`;
}

/** Why the clicker may not decide (said to them privately), or undefined when they may. */
export async function mayNotDecide(
  approvers: Approvers,
  asker: string,
  message: IncomingMessage,
  log: Logger,
  approvalId: string,
): Promise<{ kind: 'refused'; text: string } | undefined> {
  const named = Boolean(approvers.users?.length || approvers.discordRole || approvers.slackGroup);
  const refuse = (text: string) => {
    metrics.approvals.inc({ outcome: 'refused' });
    return { kind: 'refused' as const, text };
  };
  if (!named) {
    if (message.userId === asker) return undefined;
  } else {
    if ((approvers.users ?? []).includes(message.userId)) return undefined;
    if (approvers.discordRole !== undefined && (message.platformRoles ?? []).includes(approvers.discordRole))
      return undefined;
    if (approvers.slackGroup !== undefined && message.platform === 'slack') {
      const member = await groupMember(approvers.slackGroup, message, log);
      if (member === 'unknown') {
        log.info({ event: 'approval_refused', approvalId, reason: 'group_unknown' }, 'approval group not checked');
        return refuse(
          `I couldn’t check whether you are in the Slack user group ${approvers.slackGroup}, so I can’t take your ` +
            'decision. An admin may need to reinstall the app with the usergroups:read scope.',
        );
      }
      if (member) return undefined;
    }
  }
  log.info({ event: 'approval_refused', approvalId }, 'someone who may not approve clicked an approval');
  return refuse(`Only ${approverWords(approvers, asker)} can approve this.`);
}

/** Whether the clicker is in the group; `unknown` when the platform would not say (never treated as yes). */
async function groupMember(group: string, message: IncomingMessage, log: Logger): Promise<boolean | 'unknown'> {
  if (!message.inGroup) return 'unknown';
  try {
    return await message.inGroup(group);
  } catch (err) {
    const code = (err as { data?: { error?: unknown } } | undefined)?.data?.error;
    log.warn(
      { event: 'approval_group_unchecked', group, code: typeof code === 'string' ? code : undefined },
      'could not read the members of the approvers’ Slack user group (usergroups:read missing?); the click is refused',
    );
    return 'unknown';
  }
}
