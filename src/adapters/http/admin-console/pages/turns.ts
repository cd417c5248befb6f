import { html } from 'hono/html';
import type { z } from 'zod';
import type { turnListRow } from '../../../../data/rows.js';
import { duration, int, pct, usd, utcSecond } from '../format.js';
import type { Html } from '../layout.js';
import { muted, select } from '../parts.js';
import { table, type Column } from '../table.js';
import { settingsColumn } from './turn-settings.js';

type TurnRow = z.infer<typeof turnListRow>;

export interface TurnFilters {
  tenant?: string;
  platform?: string;
  outcome?: string;
  flag?: string;
}

const PLATFORMS = ['slack', 'discord', 'http', 'console'];
const OUTCOMES = ['answered', 'refused', 'failed'];
const FLAGS = ['prompt_injection', 'context_injection', 'attachment_injection'];

const columns: Column<TurnRow>[] = [
  { label: 'Time (UTC)', cell: (r) => utcSecond(r.created_at) },
  { label: 'Tenant', cell: (r) => r.tenant },
  { label: 'Platform', cell: (r) => r.platform },
  {
    label: 'Outcome',
    cell: (r) =>
      html`<span class="badge ${r.outcome}">${r.outcome}</span
        >${r.error_code ? html` <code>${r.error_code}</code>` : ''}`,
  },
  { label: 'Duration', num: true, cell: (r) => duration(r.duration_ms) },
  {
    label: 'Tokens',
    num: true,
    cell: (r) =>
      html`${int(r.prompt_tokens + r.completion_tokens)}${r.cached_prompt_tokens ? html` ${muted(`(${pct(r.cached_prompt_tokens, r.prompt_tokens)} cached)`)}` : ''}`,
  },
  {
    label: 'Cost',
    num: true,
    // No price: a dash when the turn used tokens (an unpriced model), nothing when it used none.
    cell: (r) => (r.cost_usd === null ? (r.prompt_tokens + r.completion_tokens > 0 ? '—' : '') : usd(r.cost_usd)),
  },
  { label: 'Flags', cell: (r) => r.flags.map((f) => html`<span class="badge flag">${f}</span> `) },
  {
    label: 'Tools',
    cell: (r) =>
      r.tools.map(
        (t) =>
          html`<span class="${t.ok ? 'ok' : 'bad'}">${t.tool} ${t.ok ? '✓' : '✗'}</span>${
              t.approval
                ? html` <span class="muted"
                    >(${t.approval.outcome}${t.approval.approverHash ? ` by ${t.approval.approverHash.slice(0, 8)}` : ''}
                    after ${Math.round(t.approval.waitMs / 1000)} s)</span
                  >`
                : ''
            } `,
      ),
  },
  { label: 'User', cell: (r) => html`<code title="keyed hash of the user">${r.user_hash.slice(0, 8)}</code>` },
];

/** With TRACE_URL_TEMPLATE: a link from each turn to its trace. */
const traceColumn = (traceUrl: (traceId: string) => string): Column<TurnRow> => ({
  label: 'Trace',
  cell: (r) => (r.trace_id ? html`<a href="${traceUrl(r.trace_id)}" rel="noreferrer">trace</a>` : ''),
});

/** GET /admin/turns: the turn record, newest first, filtered and paged; no message text. */
export function turnsPage(opts: {
  rows: TurnRow[];
  filters: TurnFilters;
  tenants: string[];
  page: number;
  hasNext: boolean;
  traceUrl?: (traceId: string) => string;
  /** Where each turn's settings came from (issue 46), by turn id. */
  settings?: ReadonlyMap<number, Record<string, string>>;
}): Html {
  const { rows, filters } = opts;
  const shown = [...columns, ...(opts.settings ? [settingsColumn(opts.settings)] : [])];
  const query = (page: number) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(filters)) if (v) q.set(k, v);
    if (page > 1) q.set('page', String(page));
    const s = q.toString();
    return `/admin/turns${s ? `?${s}` : ''}`;
  };
  const filter = (name: keyof TurnFilters, label: string, values: string[]) =>
    select({ id: `f-${name}`, name, label, values, chosen: filters[name], all: true });
  return html`<form class="filters" method="get" action="/admin/turns">
      ${filter('tenant', 'Tenant', opts.tenants)} ${filter('platform', 'Platform', PLATFORMS)}
      ${filter('outcome', 'Outcome', OUTCOMES)} ${filter('flag', 'Flag', FLAGS)}
      <button type="submit">Filter</button>
    </form>
    <p class="muted">Newest first. No message text is kept; the thread and the user are keyed hashes.</p>
    ${table({
      columns: opts.traceUrl ? [...shown, traceColumn(opts.traceUrl)] : shown,
      rows,
      empty: 'No turns match.',
      className: 'turns',
      rowKey: { attribute: 'data-turn', of: (r) => r.id },
    })}
    <nav class="pager" aria-label="Pages">
      ${opts.page > 1 ? html`<a href="${query(opts.page - 1)}" rel="prev">← Newer</a>` : ''}
      <span class="muted">Page ${opts.page}</span>
      ${opts.hasNext ? html`<a href="${query(opts.page + 1)}" rel="next">Older →</a>` : ''}
    </nav>`;
}
