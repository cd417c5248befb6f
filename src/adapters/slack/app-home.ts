import type { App, types } from '@slack/bolt';
import type { ToolRegistry } from '../../agent/registry.js';
import type { Config } from '../../config/index.js';
import type { DataPort, Tenant } from '../../contract/data.js';
import { newThreadState } from '../../contract/thread-state.js';
import { FAMILY_GUIDE, TOOL_FAMILIES, type ToolFamily } from '../../contract/toolsets.js';
import { formatCount, formatUsd } from '../../reply/figures.js';
import { tenantFor } from '../../data/index.js';
import type { Logger } from '../../telemetry/logger.js';
import { memoryHomeBlocks } from './app-home-memory.js';
import { inertMessage } from './inert.js';
import { slackErrorCode } from './slack-errors.js';
import { escapeMrkdwn } from './text.js';

/**
 * Slack's App Home tab (`app_home_opened`, tab `home`): what the bot can do in this workspace
 * (its tenant's tool families, each with a question to try), the user's own usage this month
 * and today against the budgets, and a link to a direct message with the bot. Published with
 * `views.publish` for that user after the event is acknowledged (the ack does not wait for the
 * database). Every text is ours, and still goes through the inert path like every message.
 */

export type AppHomeConfig = Pick<
  Config,
  'TENANT_MODE' | 'TOKEN_BUDGET_PER_USER_DAILY' | 'TOKEN_BUDGET_PER_TENANT_MONTHLY' | 'BUDGET_USD_PER_TENANT_MONTHLY'
>;

export interface AppHomeDeps {
  data: DataPort;
  registry: ToolRegistry;
  config: AppHomeConfig;
  log: Logger;
  now?: () => Date;
}

const int = formatCount;
const usd = formatUsd;

/** The families on for the tenant that have tools in this deployment, in the catalogue's order. */
async function familiesOn(deps: AppHomeDeps, tenant: Tenant): Promise<ToolFamily[]> {
  const ctx = { tenant, state: newThreadState('app-home'), data: deps.data.forTenant(tenant), log: deps.log };
  const out: ToolFamily[] = [];
  for (const family of TOOL_FAMILIES) {
    const tool = deps.registry.tools.find((t) => t.family === family);
    // Not `refusal`: that is the model's path, and warns of a call the model should not have made.
    if (tool && (await deps.registry.familyOn(ctx, tool.name))) out.push(family);
  }
  return out;
}

/** The Home tab's blocks for one user of one workspace. */
export async function appHomeBlocks(
  deps: AppHomeDeps,
  who: { teamId: string; enterpriseId?: string; userId: string; appId?: string },
): Promise<types.KnownBlock[]> {
  const tenant = await tenantFor(deps.data, deps.config.TENANT_MODE, 'slack', who.teamId, who.enterpriseId);
  const blocks: types.KnownBlock[] = [{ type: 'header', text: { type: 'plain_text', text: 'Switchboard' } }];
  if (!tenant) {
    blocks.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: 'This workspace is not set up for Switchboard yet: an administrator of this Switchboard has to approve it. Until then I cannot answer here.',
      },
    });
    return blocks;
  }
  const now = (deps.now ?? (() => new Date()))();
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const monthEnd = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const dayEnd = new Date(dayStart.getTime() + 86_400_000);
  const [families, month, today] = await Promise.all([
    familiesOn(deps, tenant),
    deps.data.usageTotals({ tenant: tenant.id, from: monthStart, to: monthEnd, userId: who.userId }),
    deps.data.usageTotals({ tenant: tenant.id, from: dayStart, to: dayEnd, userId: who.userId }),
  ]);

  blocks.push({
    type: 'section',
    text: {
      type: 'mrkdwn',
      text: `Ask me in a direct message, or mention me in a channel and I answer in the thread. For *${escapeMrkdwn(tenant.name)}* I can:`,
    },
  });
  if (families.length === 0)
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: 'Answer general questions. No data tools are turned on for this workspace yet.' },
    });
  for (const f of families) {
    const d = FAMILY_GUIDE[f];
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: `*${d.title}*: ${d.what}.\n_Try:_ “${d.example}”` },
    });
  }
  // Long-term memory (issue 45): the person's own notes, when the family is on.
  if (families.includes('memory'))
    blocks.push({ type: 'divider' }, ...(await memoryHomeBlocks(deps.data, tenant, who.userId, deps.log)));
  blocks.push({ type: 'divider' });
  blocks.push({ type: 'header', text: { type: 'plain_text', text: 'Your usage this month' } });
  const tokens = (u: typeof month) => (u ? u.promptTokens + u.completionTokens : 0);
  const perDay = deps.config.TOKEN_BUDGET_PER_USER_DAILY;
  blocks.push({
    type: 'section',
    fields: [
      { type: 'mrkdwn', text: `*Questions*\n${int(month?.turns ?? 0)}` },
      { type: 'mrkdwn', text: `*Tokens*\n${int(tokens(month))}` },
      { type: 'mrkdwn', text: `*Cost*\n${usd(month?.costUsd ?? 0)}` },
      {
        type: 'mrkdwn',
        text: `*Today*\n${int(tokens(today))}${perDay ? ` of ${int(perDay)} tokens (your daily budget)` : ' tokens (no daily budget)'}`,
      },
    ],
  });
  const limits = [
    perDay ? `your daily budget resets at 00:00 UTC` : undefined,
    deps.config.TOKEN_BUDGET_PER_TENANT_MONTHLY
      ? `the workspace has ${int(deps.config.TOKEN_BUDGET_PER_TENANT_MONTHLY)} tokens a month`
      : undefined,
    deps.config.BUDGET_USD_PER_TENANT_MONTHLY
      ? `the workspace may spend ${usd(deps.config.BUDGET_USD_PER_TENANT_MONTHLY)} a month`
      : undefined,
  ].filter(Boolean);
  blocks.push({
    type: 'context',
    elements: [
      {
        type: 'mrkdwn',
        text: `Figures from the usage ledger as of ${now.toISOString().slice(0, 16).replace('T', ' ')} UTC${limits.length ? `; ${limits.join('; ')}` : ''}. They update each time you open this tab.`,
      },
    ],
  });
  if (who.appId) {
    const dm = new URL('https://slack.com/app_redirect');
    dm.searchParams.set('app', who.appId);
    dm.searchParams.set('team', who.teamId);
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          action_id: 'app_home_open_dm',
          text: { type: 'plain_text', text: 'Open a direct message' },
          url: dm.toString(),
          style: 'primary',
        },
      ],
    });
  }
  return blocks;
}

/** Registers the `app_home_opened` listener: the Home tab, published after the ack. */
export function registerAppHome(app: App, deps: AppHomeDeps): void {
  app.event('app_home_opened', async ({ event, body, context, client }) => {
    if (event.tab !== 'home') return;
    const teamId = context.teamId ?? (body as { team_id?: string }).team_id;
    if (!teamId) return;
    const who = {
      teamId,
      userId: event.user,
      ...(context.enterpriseId ? { enterpriseId: context.enterpriseId } : {}),
      ...((body as { api_app_id?: string }).api_app_id ? { appId: (body as { api_app_id: string }).api_app_id } : {}),
    };
    // Not awaited: Slack's ack must not wait for the database and a Web API call.
    void (async () => {
      try {
        const blocks = await appHomeBlocks(deps, who);
        // Our own text, but through the same inert path as every message (no live special mention).
        const inert = inertMessage({ text: '', blocks }, { people: new Set([event.user]), unfurlDomains: [] });
        await client.views.publish({ user_id: event.user, view: { type: 'home', blocks: inert.blocks } });
        deps.log.debug({ team: teamId, blocks: blocks.length }, 'slack app home published');
      } catch (err) {
        deps.log.warn({ err, code: slackErrorCode(err), team: teamId }, 'slack app home could not be published');
      }
    })();
  });
}
