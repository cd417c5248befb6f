import { html } from 'hono/html';
import type { z } from 'zod';
import type { feedbackListRow, feedbackOverviewRow } from '../../../../data/rows.js';
import { int, pct, usd, utcMinute } from '../format.js';
import type { Html } from '../layout.js';
import { muted } from '../parts.js';
import { table, type Column } from '../table.js';

/**
 * The console's view of feedback on answers (issue 47), on the overview: satisfaction per tenant,
 * per model and per tool family (votes and the share of thumbs-up), and the thumbs-down list (the comment,
 * the tools, the model, the cost and a trace link; a draft eval case to download).
 */

type OverviewRow = z.infer<typeof feedbackOverviewRow>;
export type FeedbackListRow = z.infer<typeof feedbackListRow>;

interface Tally {
  name: string;
  up: number;
  down: number;
}

/** The answers without a tool, in the per-family table. */
const NO_TOOL = 'no tool';
/** A tool of no known family (an MCP server's, or one retired since). */
const OTHER = 'other';

/**
 * The per-family tallies from the votes per set of tools: each set's votes count once for every
 * family it touched (an answer that used two tools of one family counts once for it).
 */
export function familyTallies(rows: readonly OverviewRow[], familyOf: (tool: string) => string | undefined): Tally[] {
  const by = new Map<string, Tally>();
  for (const r of rows.filter((x) => x.dimension === 'tools')) {
    const tools = r.key ? r.key.split(',') : [];
    const families = new Set(tools.map((t) => familyOf(t) ?? OTHER));
    if (families.size === 0) families.add(NO_TOOL);
    for (const f of families) {
      const t = by.get(f) ?? { name: f, up: 0, down: 0 };
      t.up += r.up;
      t.down += r.down;
      by.set(f, t);
    }
  }
  return [...by.values()].sort((a, b) => a.name.localeCompare(b.name));
}

const tallyColumns = (label: string): Column<Tally>[] => [
  { label, rowHeader: true, cell: (t) => t.name || muted('unknown') },
  { label: 'Up', num: true, cell: (t) => int(t.up) },
  { label: 'Down', num: true, cell: (t) => int(t.down) },
  { label: 'Votes', num: true, cell: (t) => int(t.up + t.down) },
  { label: 'Satisfied', num: true, cell: (t) => pct(t.up, t.up + t.down) },
];

/** Satisfaction in the period: the headline, then per tenant, per model and per tool family. */
export function satisfactionSection(
  rows: readonly OverviewRow[],
  familyOf: (tool: string) => string | undefined,
): Html {
  const of = (dimension: OverviewRow['dimension']): Tally[] =>
    rows.filter((r) => r.dimension === dimension).map((r) => ({ name: r.key, up: r.up, down: r.down }));
  const tenants = of('tenant');
  const up = tenants.reduce((n, t) => n + t.up, 0);
  const down = tenants.reduce((n, t) => n + t.down, 0);
  const empty = 'No votes on answers of this period.';
  return html`<h2 id="satisfaction">Satisfaction</h2>
    <p class="headline" data-votes-up="${up}" data-votes-down="${down}">
      <strong>${pct(up, up + down)}</strong> satisfied · ${int(up)} up · ${int(down)} down
      ${muted('(votes on the answers of the period; one per person per answer)')}
    </p>
    <div class="satisfaction">
      ${table({ columns: tallyColumns('Tenant'), rows: tenants, empty, className: 'by-tenant' })}
      ${table({ columns: tallyColumns('Model'), rows: of('model'), empty, className: 'by-model' })}
      ${table({ columns: tallyColumns('Tool family'), rows: familyTallies(rows, familyOf), empty, className: 'by-family' })}
    </div>`;
}

/** The newest thumbs-down votes, each with what the turn record says of its answer. */
export function thumbsDownSection(rows: readonly FeedbackListRow[], traceUrl?: (traceId: string) => string): Html {
  const columns: Column<FeedbackListRow>[] = [
    { label: 'Voted (UTC)', cell: (r) => utcMinute(r.voted_at) },
    { label: 'Tenant', cell: (r) => r.tenant },
    { label: 'Platform', cell: (r) => r.platform },
    { label: 'Comment', cell: (r) => (r.comment ? html`<q class="comment">${r.comment}</q>` : muted('no comment')) },
    {
      label: 'Tools',
      cell: (r) =>
        r.tools.length
          ? r.tools.map((t) => html`<span class="${t.ok ? 'ok' : 'bad'}">${t.tool} ${t.ok ? '✓' : '✗'}</span> `)
          : muted('none'),
    },
    { label: 'Model', cell: (r) => r.model ?? '' },
    {
      label: 'Cost',
      num: true,
      cell: (r) => (r.cost_usd === null ? (r.prompt_tokens + r.completion_tokens > 0 ? '—' : '') : usd(r.cost_usd)),
    },
    {
      label: 'Trace',
      cell: (r) => (r.trace_id && traceUrl ? html`<a href="${traceUrl(r.trace_id)}" rel="noreferrer">trace</a>` : ''),
    },
    {
      label: 'Eval case',
      cell: (r) =>
        html`<a href="/admin/feedback/${r.turn_id}/eval-case" download="feedback-${r.turn_id.slice(0, 8)}.ts"
          >Draft</a
        >`,
    },
  ];
  return html`<h2 id="thumbs-down">Thumbs down</h2>
    <p class="muted">
      The newest thumbs-down votes and their comments (kept as long as the turn record). A draft turns one into an eval
      case (<code>evals/</code>).
    </p>
    ${table({
      columns,
      rows,
      empty: 'No thumbs-down votes.',
      className: 'thumbs-down',
      rowKey: { attribute: 'data-feedback-turn', of: (r) => r.turn_id },
    })}`;
}
