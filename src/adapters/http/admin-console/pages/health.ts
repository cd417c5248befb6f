import { html } from 'hono/html';
import type { InboxStats } from '../../../../inbox/inbox.js';
import { int, plural } from '../format.js';
import type { Html } from '../layout.js';
import { muted } from '../parts.js';
import { table } from '../table.js';

/** GET /admin/health: the checks of /readyz, the inbox's depth and age, and the replicas. */
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
      ${muted('(the checks of /readyz)')}
    </p>
    ${table({
      columns: [
        { label: 'Check', rowHeader: true, cell: ([name]) => name },
        { label: 'State', cell: ([, state]) => state, cellClass: ([, state]) => (state === 'ok' ? 'ok' : 'bad') },
      ],
      rows: Object.entries(ready.checks),
    })}
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
        ? table({
            columns: [
              {
                label: 'Replica',
                cell: (r) =>
                  html`<code>${r.name}</code>${r.name === opts.replicaName ? html` ${muted('(this one)')}` : ''}`,
              },
              { label: 'Last seen', cell: (r) => `${(r.lastSeenMs / 1000).toFixed(0)} s ago` },
            ],
            rows: stats.replicas,
          })
        : html`<p>
            This process only (<code>${opts.replicaName}</code>, seen now): without REDIS_URL the inbox is in process
            and replicas do not share it.
          </p>`
    }`;
}
