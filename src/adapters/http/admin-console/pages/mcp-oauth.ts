import { html } from 'hono/html';
import type { McpOAuthOverviewRow } from '../../../../data/rows.js';
import { utcMinute } from '../format.js';
import type { Html } from '../layout.js';
import { csrfField, hidden, muted } from '../parts.js';
import { table } from '../table.js';

/** What an operator reads for each grant status (issue 44, item 2). */
const STATUS_TEXT: Record<McpOAuthOverviewRow['status'], string> = {
  not_connected: 'not connected',
  connected: 'connected',
  expired: 'expired: connect again',
  revoked: 'revoked: connect again',
};

/** The Health page's section: every OAuth MCP server's grant; a lost one is marked, and its tools are left out of turns. */
export function mcpOAuthHealth(rows: readonly McpOAuthOverviewRow[] | null): Html {
  if (rows === null)
    return html`<h2>MCP OAuth grants</h2>
      <p class="bad">The grants could not be read.</p>`;
  if (rows.length === 0) return html``;
  return html`<h2>MCP OAuth grants</h2>
    <p>
      ${muted('A server whose grant is not connected has its tools left out of turns until an operator presses Connect on the Tenants page.')}
    </p>
    ${table({
      columns: [
        { label: 'Tenant', cell: (r) => r.tenant_slug },
        { label: 'Server', rowHeader: true, cell: (r) => html`<code>${r.server_name}</code>` },
        {
          label: 'Grant',
          cell: (r) => STATUS_TEXT[r.status],
          cellClass: (r) => (r.status === 'connected' ? 'ok' : 'bad'),
        },
        { label: 'Detail', cell: (r) => r.status_detail ?? '' },
        { label: 'Access token expires', cell: (r) => (r.expires_at ? `${utcMinute(r.expires_at)} UTC` : '—') },
        { label: 'Since', cell: (r) => `${utcMinute(r.updated_at)} UTC` },
      ],
      rows,
      rowKey: { attribute: 'data-mcp-grant', of: (r) => `${r.tenant_slug}/${r.server_name}` },
    })}`;
}

/**
 * A server row's OAuth controls (the Tenants page's MCP servers section): `Connect` (or
 * `Connect again`) and the client id for an authorization server without registration.
 */
export function mcpOAuthControls(opts: {
  csrf: string;
  tenant: string;
  server: string;
  status: McpOAuthOverviewRow['status'];
  clientId: string | null;
}): Html {
  const ids = html`${csrfField(opts.csrf)}${hidden('tenant', opts.tenant)}${hidden('server', opts.server)}`;
  return html`<form method="post" action="/admin/mcp/connect" class="inline">
      ${ids}<button type="submit" data-mcp-connect="${opts.tenant}/${opts.server}">
        ${opts.status === 'not_connected' ? 'Connect' : 'Connect again'}
      </button>
    </form>
    <form method="post" action="/admin/mcp/client-id" class="inline">
      ${ids}<label
        >Client id
        <input name="client_id" value="${opts.clientId ?? ''}" maxlength="500" placeholder="registered automatically"
      /></label>
      <button type="submit">Save</button>
    </form>`;
}
