import { html } from 'hono/html';
import type { z } from 'zod';
import type { turnOverviewRow } from '../../../../data/rows.js';
import { legend, stackedBarChart } from '../chart.js';
import { compact, int, pct, plural, usd } from '../format.js';
import type { Html } from '../layout.js';
import { muted } from '../parts.js';
import { table, type Column } from '../table.js';

type OverviewRow = z.infer<typeof turnOverviewRow>;

const sum = (list: readonly OverviewRow[], f: (r: OverviewRow) => number) => list.reduce((s, r) => s + f(r), 0);
const tokens = (r: OverviewRow) => r.prompt_tokens + r.completion_tokens;

/** One tenant's rows of the period (a row per tenant and day). */
interface TenantPeriod {
  tenant: string;
  rows: OverviewRow[];
}

const perTenant: Column<TenantPeriod>[] = [
  {
    label: 'Tenant',
    rowHeader: true,
    cell: ({ tenant }) => html`<a href="/admin/turns?tenant=${encodeURIComponent(tenant)}">${tenant}</a>`,
  },
  { label: 'Turns', num: true, cell: ({ rows }) => int(sum(rows, (r) => r.turns)) },
  { label: 'Refused', num: true, cell: ({ rows }) => int(sum(rows, (r) => r.refused)) },
  { label: 'Failed', num: true, cell: ({ rows }) => int(sum(rows, (r) => r.failed)) },
  { label: 'Flagged', num: true, cell: ({ rows }) => int(sum(rows, (r) => r.flagged)) },
  { label: 'Tokens', num: true, cell: ({ rows }) => int(sum(rows, tokens)) },
  {
    label: 'Cached share',
    num: true,
    cell: ({ rows }) =>
      pct(
        sum(rows, (r) => r.cached_prompt_tokens),
        sum(rows, (r) => r.prompt_tokens),
      ),
  },
  {
    label: 'Cost',
    num: true,
    cell: ({ rows }) => {
      const unpriced = sum(rows, (r) => r.unpriced_turns);
      return html`${usd(sum(rows, (r) => r.cost_usd))}${unpriced ? html` ${muted(`(+${plural(unpriced, 'unpriced turn')})`)}` : ''}`;
    },
  },
];

const perDay: Column<OverviewRow>[] = [
  { label: 'Day', cell: (r) => r.day },
  { label: 'Tenant', cell: (r) => r.tenant },
  { label: 'Turns', num: true, cell: (r) => int(r.turns) },
  { label: 'Tokens', num: true, cell: (r) => int(tokens(r)) },
  { label: 'Cost', num: true, cell: (r) => usd(r.cost_usd) },
];

/** GET /admin/overview: the period's totals, a row per tenant, and tokens and cost per day charted. */
export function overviewPage(opts: {
  from: string;
  to: string;
  days: string[];
  rows: OverviewRow[];
  /** Tool calls that waited for a person in the period, by state (issue 43). */
  approvals?: { state: string; approvals: number }[];
}): Html {
  const approvalTotal = (opts.approvals ?? []).reduce((n, a) => n + a.approvals, 0);
  const approvalWords = (opts.approvals ?? []).map((a) => `${a.approvals} ${a.state}`).join(', ');
  const { days, rows } = opts;
  const tenants = [...new Set(rows.map((r) => r.tenant))].sort();
  const totalTurns = sum(rows, (r) => r.turns);
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
      <strong data-total-turns="${totalTurns}">${plural(totalTurns, 'turn')}</strong> · ${int(sum(rows, tokens))} tokens
      · ${usd(sum(rows, (r) => r.cost_usd))} ·
      <span data-approvals="${approvalTotal}">${plural(approvalTotal, 'approval')}</span>${
        approvalWords ? ` (${approvalWords})` : ''
      }
      ${muted(`(${opts.from} to ${opts.to}, UTC)`)}
    </p>
    <h2>Per tenant</h2>
    ${table({
      columns: perTenant,
      rows: tenants.map((tenant) => ({ tenant, rows: rows.filter((r) => r.tenant === tenant) })),
      empty: 'No turns in this period.',
    })}
    <h2>Per day</h2>
    <div class="charts">
      <figure>
        ${stackedBarChart({ title: 'Tokens per day', days, series: seriesOf(tokens), format: compact })}
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
      ${table({ columns: perDay, rows })}
    </details>`;
}
