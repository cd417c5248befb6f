import { html } from 'hono/html';
import type { z } from 'zod';
import type { ApiToken } from '../../../../data/api-tokens.js';
import type { channelSettingsListRow, tenantToolsListRow, workspaceRequestRow } from '../../../../data/rows.js';
import { channelSettingsSection } from './channel-settings.js';
import { int, usd } from '../format.js';
import type { Html } from '../layout.js';
import { muted, notice } from '../parts.js';
import { table, type Column } from '../table.js';
import { pendingInstalls } from './installs.js';
import { apiTokens, newTokenNotice } from './tokens.js';

type TenantRow = z.infer<typeof tenantToolsListRow>;
type RequestRow = z.infer<typeof workspaceRequestRow>;

export interface TenantUsage {
  tokens: number;
  costUsd: number;
}

export interface Budgets {
  perUserDaily?: number;
  perTenantMonthly?: number;
  usdPerTenantMonthly?: number;
}

/** The thread before a mention (issue 42): each tenant's setting (null: the deployment's), and the deployment's. */
export interface ThreadContextSettings {
  tenants: Map<string, boolean | null>;
  deployment: 'on' | 'off';
}

function tenantColumns(
  usage: Map<string, TenantUsage | null>,
  budgets: Budgets,
  approvals?: Map<string, string>,
  threadContext?: ThreadContextSettings,
): Column<TenantRow>[] {
  const of = (total: string | undefined) => (total ? html` ${muted(`of ${total}`)}` : '');
  return [
    {
      label: 'Tenant',
      rowHeader: true,
      cell: (t) => html`${t.slug}${t.is_default ? html` ${muted('(default)')}` : ''}`,
    },
    { label: 'Name', cell: (t) => t.name },
    {
      label: 'Toolsets',
      cell: (t) =>
        t.tools === null
          ? muted('automatic (what it has data for)')
          : t.tools.length
            ? t.tools.join(', ')
            : muted('none'),
    },
    ...(approvals
      ? [
          {
            label: 'Approvals',
            cell: (t: TenantRow) => approvals.get(t.slug) ?? muted('defaults'),
          },
        ]
      : []),
    ...(threadContext
      ? [
          {
            label: 'Thread before a mention',
            cell: (t: TenantRow) => {
              const own = threadContext.tenants.get(t.slug);
              if (threadContext.deployment === 'off') return muted('off (THREAD_CONTEXT=off)');
              return own === false ? 'off' : own === true ? 'on' : muted('on (the default)');
            },
          },
        ]
      : []),
    {
      label: 'Tokens this month',
      num: true,
      cell: (t) => {
        const u = usage.get(t.slug);
        return html`${u ? int(u.tokens) : '—'}${of(budgets.perTenantMonthly ? int(budgets.perTenantMonthly) : undefined)}`;
      },
    },
    {
      label: 'Cost this month',
      num: true,
      cell: (t) => {
        const u = usage.get(t.slug);
        return html`${u ? usd(u.costUsd) : '—'}${of(budgets.usdPerTenantMonthly ? usd(budgets.usdPerTenantMonthly) : undefined)}`;
      },
    },
  ];
}

/** The budgets in words: they are settings, the same for every tenant. */
function budgetsLine(budgets: Budgets): Html {
  return html`<p class="muted">
    Budgets (settings, the same for every tenant):
    ${budgets.perTenantMonthly ? `${int(budgets.perTenantMonthly)} tokens a month per tenant` : 'no monthly token budget'};
    ${budgets.usdPerTenantMonthly ? `${usd(budgets.usdPerTenantMonthly)} a month per tenant` : 'no monthly spending budget'};
    ${budgets.perUserDaily ? `${int(budgets.perUserDaily)} tokens a day per user` : 'no daily budget per user'}.
  </p>`;
}

/** GET /admin/tenants (and the answer to its forms): pending installs, tenants and budgets, API tokens. */
export function tenantsPage(opts: {
  csrf: string;
  tenants: TenantRow[];
  usage: Map<string, TenantUsage | null>;
  budgets: Budgets;
  tokens: ApiToken[];
  requests: RequestRow[];
  /** Each tenant's approval settings in words (issue 43), by slug. */
  approvals?: Map<string, string>;
  threadContext?: ThreadContextSettings;
  /** Channels with settings of their own (issue 46). */
  channels?: z.infer<typeof channelSettingsListRow>[];
  /** The MCP servers section (issue 44; pages/mcp-servers.ts). */
  mcp?: Html;
  notice?: { text: string; error?: boolean };
  newToken?: { token: string; record: ApiToken };
}): Html {
  const { csrf, tenants, budgets } = opts;
  const slugs = tenants.map((t) => t.slug);
  return html`${opts.notice ? notice(opts.notice.text, { error: opts.notice.error ?? false }) : ''}
    ${opts.newToken ? newTokenNotice(opts.newToken) : ''}
    <h2 id="pending">Pending Slack installs</h2>
    ${pendingInstalls({ csrf, requests: opts.requests, tenants: slugs })}
    <h2>Tenants</h2>
    ${table({ columns: tenantColumns(opts.usage, budgets, opts.approvals, opts.threadContext), rows: tenants })}
    ${budgetsLine(budgets)}
    <p class="muted">
      Approvals: write tools (take_message) wait for a person by default, spend tools (generate_image) for guests, and
      every write or spend call of a turn that read other people's words. Change them with
      <code>npm run tenants -- approvals &lt;tenant&gt;</code> or the admin API.
    </p>
    <p class="muted">
      Thread before a mention: whether the bot reads the earlier messages of a thread it is mentioned in. Change it with
      <code>npm run tenants -- thread-context &lt;tenant&gt; on|off|default</code> or the admin API.
    </p>
    ${opts.channels ? channelSettingsSection({ csrf, rows: opts.channels, tenants: slugs }) : ''} ${opts.mcp ?? ''}
    <h2>API tokens</h2>
    ${apiTokens({ csrf, tokens: opts.tokens, tenants: slugs })}`;
}
