import { html } from 'hono/html';
import type { z } from 'zod';
import type { ApiToken } from '../../../data/api-tokens.js';
import type { turnListRow, turnOverviewRow, tenantToolsListRow, workspaceRequestRow } from '../../../data/rows.js';
import type { InboxStats } from '../../../turns/inbox.js';
import { legend, stackedBarChart } from './chart.js';
import type { Html } from './layout.js';
import { formatCount, formatUsd } from '../../../reply/figures.js';

type OverviewRow = z.infer<typeof turnOverviewRow>;
type TurnRow = z.infer<typeof turnListRow>;
type TenantRow = z.infer<typeof tenantToolsListRow>;
type RequestRow = z.infer<typeof workspaceRequestRow>;

const int = formatCount;
const usd = formatUsd;
const compact = (n: number) =>
  n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 1_000 ? `${(n / 1_000).toFixed(1)}k` : int(n);
const pct = (part: number, whole: number) => (whole > 0 ? `${Math.round((part / whole) * 100)}%` : '—');
const plural = (n: number, one: string, many = `${one}s`) => `${int(n)} ${n === 1 ? one : many}`;

export function signInPage(opts: { csrf: string; error?: string }): Html {
  return html`<div class="signin">
    ${opts.error ? html`<p class="notice error" role="alert">${opts.error}</p>` : ''}
    <p class="muted">Sign in with the server's <code>ADMIN_TOKEN</code>.</p>
    <form method="post" action="/admin/login">
      <input type="hidden" name="csrf" value="${opts.csrf}" />
      <label for="token"
        >Admin token
        <input id="token" name="token" type="password" autocomplete="current-password" required autofocus />
      </label>
      <button type="submit" class="primary">Sign in</button>
    </form>
  </div>`;
}

export function overviewPage(opts: { from: string; to: string; days: string[]; rows: OverviewRow[] }): Html {
  const { days, rows } = opts;
  const tenants = [...new Set(rows.map((r) => r.tenant))].sort();
  const sum = (list: OverviewRow[], f: (r: OverviewRow) => number) => list.reduce((s, r) => s + f(r), 0);
  const totalTurns = sum(rows, (r) => r.turns);
  const totalTokens = sum(rows, (r) => r.prompt_tokens + r.completion_tokens);
  const totalCost = sum(rows, (r) => r.cost_usd);
  const seriesOf = (f: (r: OverviewRow) => number) =>
    tenants.map((t) => ({
      name: t,
      values: new Map(rows.filter((r) => r.tenant === t).map((r) => [r.day, f(r)] as const)),
    }));
  return html`<form class="period" method="get" action="/admin/overview">
      <label for="from">From <input id="from" name="from" type="date" value="${opts.from}" /></label>
      <label for="to">To <input id="to" name="to" type="date" value="${opts.to}" /></label>
      <button type="submit">Show</button>
    </form>
    <p class="headline">
      <strong data-total-turns="${totalTurns}">${plural(totalTurns, 'turn')}</strong> · ${int(totalTokens)} tokens ·
      ${usd(totalCost)} <span class="muted">(${opts.from} to ${opts.to}, UTC)</span>
    </p>
    <h2>Per tenant</h2>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Tenant</th>
            <th scope="col" class="num">Turns</th>
            <th scope="col" class="num">Refused</th>
            <th scope="col" class="num">Failed</th>
            <th scope="col" class="num">Flagged</th>
            <th scope="col" class="num">Tokens</th>
            <th scope="col" class="num">Cached share</th>
            <th scope="col" class="num">Cost</th>
          </tr>
        </thead>
        <tbody>
          ${
            tenants.length === 0
              ? html`<tr>
                  <td colspan="8" class="muted">No turns in this period.</td>
                </tr>`
              : tenants.map((t) => {
                  const own = rows.filter((r) => r.tenant === t);
                  const prompt = sum(own, (r) => r.prompt_tokens);
                  const unpriced = sum(own, (r) => r.unpriced_turns);
                  return html`<tr>
                    <th scope="row"><a href="/admin/turns?tenant=${encodeURIComponent(t)}">${t}</a></th>
                    <td class="num">${int(sum(own, (r) => r.turns))}</td>
                    <td class="num">${int(sum(own, (r) => r.refused))}</td>
                    <td class="num">${int(sum(own, (r) => r.failed))}</td>
                    <td class="num">${int(sum(own, (r) => r.flagged))}</td>
                    <td class="num">${int(prompt + sum(own, (r) => r.completion_tokens))}</td>
                    <td class="num">
                      ${pct(
                        sum(own, (r) => r.cached_prompt_tokens),
                        prompt,
                      )}
                    </td>
                    <td class="num">
                      ${usd(sum(own, (r) => r.cost_usd))}${unpriced ? html` <span class="muted">(+${plural(unpriced, 'unpriced turn')})</span>` : ''}
                    </td>
                  </tr>`;
                })
          }
        </tbody>
      </table>
    </div>
    <h2>Per day</h2>
    <div class="charts">
      <figure>
        ${stackedBarChart({
          title: 'Tokens per day',
          days,
          series: seriesOf((r) => r.prompt_tokens + r.completion_tokens),
          format: compact,
        })}
        <figcaption class="muted">Tokens per day, stacked by tenant</figcaption>
      </figure>
      <figure>
        ${stackedBarChart({ title: 'Cost per day', days, series: seriesOf((r) => r.cost_usd), format: usd })}
        <figcaption class="muted">Cost (USD) per day, stacked by tenant</figcaption>
      </figure>
    </div>
    ${legend(tenants)}
    <details>
      <summary>The figures per day</summary>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Tenant</th>
              <th scope="col" class="num">Turns</th>
              <th scope="col" class="num">Tokens</th>
              <th scope="col" class="num">Cost</th>
            </tr>
          </thead>
          <tbody>
            ${rows.map(
              (r) =>
                html`<tr>
                  <td>${r.day}</td>
                  <td>${r.tenant}</td>
                  <td class="num">${int(r.turns)}</td>
                  <td class="num">${int(r.prompt_tokens + r.completion_tokens)}</td>
                  <td class="num">${usd(r.cost_usd)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </details>`;
}

export interface TurnFilters {
  tenant?: string;
  platform?: string;
  outcome?: string;
  flag?: string;
}

const PLATFORMS = ['slack', 'discord', 'http', 'console'];
const OUTCOMES = ['answered', 'refused', 'failed'];
const FLAGS = ['prompt_injection'];

function select(name: string, label: string, values: string[], chosen: string | undefined): Html {
  return html`<label for="f-${name}"
    >${label}
    <select id="f-${name}" name="${name}">
      <option value="">All</option>
      ${values.map((v) => html`<option value="${v}" ${v === chosen ? html` selected` : ''}>${v}</option>`)}
    </select></label
  >`;
}

export function turnsPage(opts: {
  rows: TurnRow[];
  filters: TurnFilters;
  tenants: string[];
  page: number;
  hasNext: boolean;
  traceUrl?: (traceId: string) => string;
}): Html {
  const { rows, filters } = opts;
  const query = (page: number) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(filters)) if (v) q.set(k, v);
    if (page > 1) q.set('page', String(page));
    const s = q.toString();
    return `/admin/turns${s ? `?${s}` : ''}`;
  };
  return html`<form class="filters" method="get" action="/admin/turns">
      ${select('tenant', 'Tenant', opts.tenants, filters.tenant)}
      ${select('platform', 'Platform', PLATFORMS, filters.platform)}
      ${select('outcome', 'Outcome', OUTCOMES, filters.outcome)} ${select('flag', 'Flag', FLAGS, filters.flag)}
      <button type="submit">Filter</button>
    </form>
    <p class="muted">Newest first. No message text is kept; the thread and the user are keyed hashes.</p>
    <div class="table-wrap">
      <table class="turns">
        <thead>
          <tr>
            <th scope="col">Time (UTC)</th>
            <th scope="col">Tenant</th>
            <th scope="col">Platform</th>
            <th scope="col">Outcome</th>
            <th scope="col" class="num">Duration</th>
            <th scope="col" class="num">Tokens</th>
            <th scope="col" class="num">Cost</th>
            <th scope="col">Flags</th>
            <th scope="col">Tools</th>
            <th scope="col">User</th>
            ${opts.traceUrl ? html`<th scope="col">Trace</th>` : ''}
          </tr>
        </thead>
        <tbody>
          ${
            rows.length === 0
              ? html`<tr>
                  <td colspan="11" class="muted">No turns match.</td>
                </tr>`
              : rows.map(
                  (r) =>
                    html`<tr data-turn="${r.id}">
                      <td>${r.created_at.slice(0, 19).replace('T', ' ')}</td>
                      <td>${r.tenant}</td>
                      <td>${r.platform}</td>
                      <td>
                        <span class="badge ${r.outcome}">${r.outcome}</span
                        >${r.error_code ? html` <code>${r.error_code}</code>` : ''}
                      </td>
                      <td class="num">
                        ${r.duration_ms < 1000 ? `${r.duration_ms} ms` : `${(r.duration_ms / 1000).toFixed(1)} s`}
                      </td>
                      <td class="num">
                        ${int(r.prompt_tokens + r.completion_tokens)}${r.cached_prompt_tokens ? html` <span class="muted">(${pct(r.cached_prompt_tokens, r.prompt_tokens)} cached)</span>` : ''}
                      </td>
                      <td class="num">
                        ${r.cost_usd === null ? (r.prompt_tokens + r.completion_tokens > 0 ? '—' : '') : usd(r.cost_usd)}
                      </td>
                      <td>${r.flags.map((f) => html`<span class="badge flag">${f}</span> `)}</td>
                      <td>
                        ${r.tools.map((t) => html`<span class="${t.ok ? 'ok' : 'bad'}">${t.tool} ${t.ok ? '✓' : '✗'}</span> `)}
                      </td>
                      <td><code title="keyed hash of the user">${r.user_hash.slice(0, 8)}</code></td>
                      ${opts.traceUrl ? html`<td>${r.trace_id ? html`<a href="${opts.traceUrl(r.trace_id)}" rel="noreferrer">trace</a>` : ''}</td>` : ''}
                    </tr>`,
                )
          }
        </tbody>
      </table>
    </div>
    <nav class="pager" aria-label="Pages">
      ${opts.page > 1 ? html`<a href="${query(opts.page - 1)}" rel="prev">← Newer</a>` : ''}
      <span class="muted">Page ${opts.page}</span>
      ${opts.hasNext ? html`<a href="${query(opts.page + 1)}" rel="next">Older →</a>` : ''}
    </nav>`;
}

export interface TenantUsage {
  tokens: number;
  costUsd: number;
}

export function tenantsPage(opts: {
  csrf: string;
  tenants: TenantRow[];
  usage: Map<string, TenantUsage | null>;
  budgets: { perUserDaily?: number; perTenantMonthly?: number; usdPerTenantMonthly?: number };
  tokens: ApiToken[];
  requests: RequestRow[];
  notice?: { text: string; error?: boolean };
  newToken?: { token: string; record: ApiToken };
}): Html {
  const { csrf, tenants, budgets } = opts;
  const tenantOptions = tenants.map((t) => html`<option value="${t.slug}">${t.slug}</option>`);
  const live = opts.tokens.filter((t) => !t.revoked_at);
  return html`${opts.notice ? html`<p class="notice${opts.notice.error ? ' error' : ''}" role="status">${opts.notice.text}</p>` : ''}
    ${
      opts.newToken
        ? html`<div class="notice" role="status">
            <p>
              New API token for <b>${opts.newToken.record.tenant_slug}</b>. It is shown this once; only its hash is
              kept:
            </p>
            <code class="secret" data-new-token>${opts.newToken.token}</code>
          </div>`
        : ''
    }
    <h2 id="pending">Pending Slack installs</h2>
    ${
      opts.requests.length === 0
        ? html`<p class="muted">No workspace is waiting for approval.</p>`
        : html`<div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Platform</th>
                  <th scope="col">Workspace</th>
                  <th scope="col">Name</th>
                  <th scope="col">Requested by</th>
                  <th scope="col">Requested (UTC)</th>
                  <th scope="col">Decision</th>
                </tr>
              </thead>
              <tbody>
                ${opts.requests.map(
                  (r) =>
                    html`<tr data-request="${r.workspace_id}">
                      <td>${r.platform}</td>
                      <td><code>${r.workspace_id}</code></td>
                      <td>${r.name ?? ''}</td>
                      <td>${r.requested_by ?? ''}</td>
                      <td>${r.requested_at.slice(0, 16).replace('T', ' ')}</td>
                      <td>
                        <form class="inline" method="post" action="/admin/installs/decide">
                          <input type="hidden" name="csrf" value="${csrf}" />
                          <input type="hidden" name="platform" value="${r.platform}" />
                          <input type="hidden" name="workspace_id" value="${r.workspace_id}" />
                          <label for="t-${r.platform}-${r.workspace_id}"
                            >Tenant
                            <select id="t-${r.platform}-${r.workspace_id}" name="tenant">
                              ${tenantOptions}
                            </select></label
                          >
                          <button type="submit" name="decision" value="approve" class="primary">Approve</button>
                          <button type="submit" name="decision" value="reject" class="danger">Reject</button>
                        </form>
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    <h2>Tenants</h2>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Tenant</th>
            <th scope="col">Name</th>
            <th scope="col">Toolsets</th>
            <th scope="col" class="num">Tokens this month</th>
            <th scope="col" class="num">Cost this month</th>
          </tr>
        </thead>
        <tbody>
          ${tenants.map((t) => {
            const u = opts.usage.get(t.slug);
            return html`<tr>
              <th scope="row">${t.slug}${t.is_default ? html` <span class="muted">(default)</span>` : ''}</th>
              <td>${t.name}</td>
              <td>
                ${t.tools === null ? html`<span class="muted">automatic (what it has data for)</span>` : t.tools.length ? t.tools.join(', ') : html`<span class="muted">none</span>`}
              </td>
              <td class="num">
                ${u ? int(u.tokens) : '—'}${budgets.perTenantMonthly ? html` <span class="muted">of ${int(budgets.perTenantMonthly)}</span>` : ''}
              </td>
              <td class="num">
                ${u ? usd(u.costUsd) : '—'}${budgets.usdPerTenantMonthly ? html` <span class="muted">of ${usd(budgets.usdPerTenantMonthly)}</span>` : ''}
              </td>
            </tr>`;
          })}
        </tbody>
      </table>
    </div>
    <p class="muted">
      Budgets (settings, the same for every tenant):
      ${
        budgets.perTenantMonthly
          ? `${int(budgets.perTenantMonthly)} tokens a month per tenant`
          : 'no monthly token budget'
      };
      ${budgets.usdPerTenantMonthly ? `${usd(budgets.usdPerTenantMonthly)} a month per tenant` : 'no monthly spending budget'};
      ${budgets.perUserDaily ? `${int(budgets.perUserDaily)} tokens a day per user` : 'no daily budget per user'}.
    </p>
    <h2>API tokens</h2>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Tenant</th>
            <th scope="col">Prefix</th>
            <th scope="col">Label</th>
            <th scope="col">Created (UTC)</th>
            <th scope="col">Last used</th>
            <th scope="col">Revoke</th>
          </tr>
        </thead>
        <tbody>
          ${
            live.length === 0
              ? html`<tr>
                  <td colspan="6" class="muted">No live API tokens.</td>
                </tr>`
              : live.map(
                  (t) =>
                    html`<tr>
                      <td>${t.tenant_slug}</td>
                      <td><code>${t.prefix}…</code></td>
                      <td>${t.label ?? ''}</td>
                      <td>${t.created_at.slice(0, 16).replace('T', ' ')}</td>
                      <td>${t.last_used_at ? t.last_used_at.slice(0, 16).replace('T', ' ') : 'never'}</td>
                      <td>
                        <form class="inline" method="post" action="/admin/tokens/revoke">
                          <input type="hidden" name="csrf" value="${csrf}" /><input
                            type="hidden"
                            name="id"
                            value="${t.id}"
                          />
                          <button type="submit" class="danger" aria-label="Revoke token ${t.prefix}">Revoke</button>
                        </form>
                      </td>
                    </tr>`,
                )
          }
        </tbody>
      </table>
    </div>
    <h3>New token</h3>
    <form class="filters" method="post" action="/admin/tokens">
      <input type="hidden" name="csrf" value="${csrf}" />
      <label for="nt-tenant"
        >Tenant
        <select id="nt-tenant" name="tenant">
          ${tenantOptions}
        </select></label
      >
      <label for="nt-label">Label <input id="nt-label" name="label" maxlength="200" /></label>
      <button type="submit" class="primary">Create token</button>
    </form>`;
}

export function healthPage(opts: {
  ready: { ok: boolean; checks: Record<string, string> };
  stats: InboxStats | null;
  inboxKind: string;
  dataKind: string;
  replicaName: string;
}): Html {
  const { ready, stats } = opts;
  return html`<p class="headline">
      ${ready.ok ? html`<span class="ok">Ready</span>` : html`<span class="bad">Not ready</span>`}
      <span class="muted">(the checks of /readyz)</span>
    </p>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Check</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          ${Object.entries(ready.checks).map(
            ([name, state]) =>
              html`<tr>
                <th scope="row">${name}</th>
                <td class="${state === 'ok' ? 'ok' : 'bad'}">${state}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    <h2>Inbox</h2>
    ${
      stats
        ? html`<dl class="facts">
            <dt>Kind</dt>
            <dd>${opts.inboxKind}</dd>
            <dt>Depth</dt>
            <dd data-inbox-depth="${stats.pending}">
              ${plural(stats.pending, 'entry', 'entries')} waiting or running (${int(stats.running)} running)
            </dd>
            <dt>Oldest entry</dt>
            <dd>${stats.pending === 0 ? 'none' : `${(stats.oldestAgeMs / 1000).toFixed(1)} s old`}</dd>
            <dt>Database</dt>
            <dd>${opts.dataKind}</dd>
          </dl>`
        : html`<p class="bad">The inbox did not answer.</p>`
    }
    <h2>Replicas</h2>
    ${
      stats?.replicas
        ? html`<div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Replica</th>
                  <th scope="col">Last seen</th>
                </tr>
              </thead>
              <tbody>
                ${stats.replicas.map(
                  (r) =>
                    html`<tr>
                      <td>
                        <code>${r.name}</code
                        >${r.name === opts.replicaName ? html` <span class="muted">(this one)</span>` : ''}
                      </td>
                      <td>${(r.lastSeenMs / 1000).toFixed(0)} s ago</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
        : html`<p>
            This process only (<code>${opts.replicaName}</code>, seen now): without REDIS_URL the inbox is in process
            and replicas do not share it.
          </p>`
    }`;
}
