import { html } from 'hono/html';
import type { z } from 'zod';
import type { memoryAdminRow, memoryCountRow } from '../../../../data/rows.js';
import { utcMinute } from '../format.js';
import type { Html } from '../layout.js';
import { csrfField, hidden, muted, notice } from '../parts.js';
import { table } from '../table.js';

type CountRow = z.infer<typeof memoryCountRow>;
type NoteRow = z.infer<typeof memoryAdminRow> & { tenant: string };

/** Above the notes: a note just forgotten, or why it was not. */
export interface MemoryNotice {
  text: string;
  error?: boolean;
}

/**
 * Long-term memory (issue 45): how many live notes each tenant keeps, per scope, and the team
 * and channel notes themselves, each with Forget (routes/memory-forget.ts). A person's own notes
 * are counted, never shown or forgotten here: they are theirs.
 */
export function memoryPage(opts: {
  counts: CountRow[];
  notes: NoteRow[];
  shownPerTenant: number;
  csrf: string;
  notice?: MemoryNotice | undefined;
}): Html {
  const tenants = [...new Set(opts.counts.map((c) => c.slug))];
  const count = (slug: string, scope: CountRow['scope']) =>
    opts.counts.find((c) => c.slug === slug && c.scope === scope)?.memories ?? 0;
  const shown = opts.notice;
  return html`${shown ? notice(shown.text, shown.error ? { error: true, role: 'alert' } : {}) : ''}
    <h2>Notes per tenant</h2>
    ${table({
      columns: [
        { label: 'Tenant', rowHeader: true, cell: (t: string) => t },
        { label: 'About a person', num: true, cell: (t: string) => count(t, 'user') },
        { label: 'Channel', num: true, cell: (t: string) => count(t, 'channel') },
        { label: 'Team', num: true, cell: (t: string) => count(t, 'team') },
      ],
      rows: tenants,
      empty: 'No tenant keeps any note yet.',
      rowKey: { attribute: 'data-memory-tenant', of: (t) => t },
    })}
    <h2>Team and channel notes</h2>
    ${muted(
      `People's own notes are counted above, never listed. Up to ${opts.shownPerTenant} notes per tenant, newest first. Forget deletes one at once (no turn recalls it afterwards); they are also forgotten with /memory, DELETE /api/memory/{id} or npm run tenants -- memory purge <tenant>.`,
    )}
    ${table({
      columns: [
        { label: 'Tenant', rowHeader: true, cell: (n: NoteRow) => n.tenant },
        { label: 'Scope', cell: (n: NoteRow) => n.scope },
        { label: 'Where', cell: (n: NoteRow) => (n.channel_id ? `${n.platform} ${n.channel_id}` : n.platform) },
        { label: 'Note', cell: (n: NoteRow) => n.text },
        { label: 'Saved (UTC)', cell: (n: NoteRow) => utcMinute(n.created_at) },
        { label: 'Expires (UTC)', cell: (n: NoteRow) => utcMinute(n.expires_at) },
        {
          label: 'Forget',
          cell: (n: NoteRow) =>
            html`<form class="inline" method="post" action="/admin/memory/forget">
              ${csrfField(opts.csrf)}${hidden('tenant', n.tenant)}${hidden('id', n.id)}
              <button
                type="submit"
                class="danger"
                aria-label="Forget the ${n.scope} note of ${n.tenant} saved ${utcMinute(n.created_at)}"
              >
                Forget
              </button>
            </form>`,
        },
      ],
      rows: opts.notes,
      empty: 'No team or channel notes.',
      rowKey: { attribute: 'data-memory', of: (n) => n.id },
    })}`;
}
