import { html } from 'hono/html';
import type { z } from 'zod';
import type { workspaceRequestRow } from '../../../../data/rows.js';
import { utcMinute } from '../format.js';
import type { Html } from '../layout.js';
import { csrfField, hidden, select } from '../parts.js';
import { table } from '../table.js';

type RequestRow = z.infer<typeof workspaceRequestRow>;

/**
 * The tenants page's pending installs (TENANT_MODE=strict): each workspace waiting for an
 * operator, approved into a tenant or rejected (POST /admin/installs/decide).
 */
export function pendingInstalls(opts: { csrf: string; requests: RequestRow[]; tenants: string[] }): Html {
  const { csrf } = opts;
  if (opts.requests.length === 0) return html`<p class="muted">No workspace is waiting for approval.</p>`;
  return table({
    columns: [
      { label: 'Platform', cell: (r) => r.platform },
      { label: 'Workspace', cell: (r) => html`<code>${r.workspace_id}</code>` },
      { label: 'Name', cell: (r) => r.name ?? '' },
      { label: 'Requested by', cell: (r) => r.requested_by ?? '' },
      { label: 'Requested (UTC)', cell: (r) => utcMinute(r.requested_at) },
      {
        label: 'Decision',
        cell: (r) =>
          html`<form class="inline" method="post" action="/admin/installs/decide">
            ${csrfField(csrf)} ${hidden('platform', r.platform)} ${hidden('workspace_id', r.workspace_id)}
            ${select({ id: `t-${r.platform}-${r.workspace_id}`, name: 'tenant', label: 'Tenant', values: opts.tenants })}
            <button type="submit" name="decision" value="approve" class="primary">Approve</button>
            <button type="submit" name="decision" value="reject" class="danger">Reject</button>
          </form>`,
      },
    ],
    rows: opts.requests,
    rowKey: { attribute: 'data-request', of: (r) => r.workspace_id },
  });
}
