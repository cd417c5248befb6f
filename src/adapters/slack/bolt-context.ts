import type { Context } from '@slack/bolt';
import type { SlackContext } from './normalize.js';
import type { SlackAuth } from './oauth.js';

/** The parts of an Events API envelope we read. */
export interface EventBody {
  event_id?: unknown;
  team_id?: unknown;
  enterprise_id?: unknown;
}

const nonEmpty = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

/** The installation Bolt authorized the event with: the same query answers it later, on any replica. */
export function authOf(context: Context, body: EventBody = {}): SlackAuth {
  const teamId = context.teamId ?? nonEmpty(body.team_id);
  const enterpriseId = context.enterpriseId ?? nonEmpty(body.enterprise_id);
  return {
    ...(teamId ? { teamId } : {}),
    ...(enterpriseId ? { enterpriseId } : {}),
    isEnterpriseInstall: context.isEnterpriseInstall ?? false,
  };
}

/** Bolt's context, with the envelope's team as a fallback when `authorizations` lacks it. */
export function slackContext(context: Context, body: EventBody = {}): SlackContext {
  return {
    teamId: context.teamId ?? nonEmpty(body.team_id),
    enterpriseId: context.enterpriseId ?? nonEmpty(body.enterprise_id),
    botUserId: context.botUserId,
    botId: context.botId,
  };
}
