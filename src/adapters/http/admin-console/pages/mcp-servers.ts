import { html } from 'hono/html';
import type { McpServerHealth, McpServerSummary } from '../../../../mcp/index.js';
import { utcMinute } from '../format.js';
import type { Html } from '../layout.js';
import { csrfField, hidden, muted, select } from '../parts.js';
import { table } from '../table.js';

/** One server on the Tenants page: its tenant, its row (no header values), what this replica knows of it. */
export interface McpServerRowView {
  tenant: string;
  server: McpServerSummary;
  health?: McpServerHealth;
}

const STATE_TEXT: Record<McpServerHealth['state'], string> = {
  ok: 'ok',
  failing: 'failing',
  needs_auth: 'needs sign-in',
  unreadable: 'headers unreadable',
  unknown: 'not used yet',
};

/**
 * The Tenants page's section on MCP servers (issue 44): each tenant's servers (headers by name
 * only), their state on this replica, a Remove and an Enable / Disable of tools by name, and a form
 * that adds one. `controls` adds per-row controls (the OAuth `Connect`, src/mcp/oauth.ts).
 */
export function mcpServersSection(opts: {
  csrf: string;
  rows: McpServerRowView[];
  tenants: string[];
  controls?: (row: McpServerRowView) => Html | string;
}): Html {
  const { csrf } = opts;
  const ids = (r: McpServerRowView) =>
    html`${csrfField(csrf)}${hidden('tenant', r.tenant)}${hidden('name', r.server.name)}`;
  return html`<h2 id="mcp">MCP servers</h2>
    <p class="muted">
      Tools a tenant brings from its own MCP servers, named <code>&lt;server&gt;__&lt;tool&gt;</code>. Tools the server
      marks read-only start on, the others off; the tenant’s approval policy decides each call, and every result is
      fenced and taints the turn. Also <code>npm run tenants -- mcp …</code> or the admin API.
    </p>
    ${table({
      columns: [
        { label: 'Tenant', cell: (r) => r.tenant },
        { label: 'Server', rowHeader: true, cell: (r) => html`<code>${r.server.name}</code>` },
        { label: 'URL', cell: (r) => html`<code>${r.server.url}</code>` },
        {
          label: 'Auth',
          cell: (r) =>
            r.server.authKind === 'oauth'
              ? 'OAuth'
              : r.server.headerNames.length
                ? `headers: ${r.server.headerNames.join(', ')}`
                : 'none',
        },
        {
          label: 'State',
          cell: (r) =>
            r.health
              ? html`${STATE_TEXT[r.health.state]}${r.health.error ? html` ${muted(`(${r.health.error})`)}` : ''}`
              : STATE_TEXT.unknown,
          cellClass: (r) => (r.health?.state === 'ok' ? 'ok' : r.health && r.health.state !== 'unknown' ? 'bad' : ''),
        },
        {
          label: 'Tools on',
          cell: (r) => (r.health ? `${r.health.enabled} of ${r.health.tools}` : muted('not listed yet')),
        },
        { label: 'Added (UTC)', cell: (r) => utcMinute(r.server.createdAt) },
        {
          label: 'Tools',
          cell: (r) =>
            html`<form class="inline" method="post" action="/admin/mcp/tools">
              ${ids(r)}<label
                >Tool
                <input
                  name="tool"
                  required
                  maxlength="200"
                  placeholder="tool name or *"
                  aria-label="Tool of ${r.server.name}"
              /></label>
              <button type="submit" name="action" value="enable">Enable</button>
              <button type="submit" name="action" value="disable">Disable</button>
            </form>`,
        },
        {
          label: 'Remove',
          cell: (r) =>
            html`${opts.controls?.(r) ?? ''}
              <form class="inline" method="post" action="/admin/mcp/remove">
                ${ids(r)}<button type="submit" class="danger" aria-label="Remove MCP server ${r.server.name}">
                  Remove
                </button>
              </form>`,
        },
      ],
      rows: opts.rows,
      empty: 'No tenant has an MCP server.',
      rowKey: { attribute: 'data-mcp-server', of: (r) => `${r.tenant}/${r.server.name}` },
    })}
    <h3>Add an MCP server</h3>
    <form class="filters" method="post" action="/admin/mcp/add">
      ${csrfField(csrf)} ${select({ id: 'mcp-tenant', name: 'tenant', label: 'Tenant', values: opts.tenants })}
      <label for="mcp-name"
        >Name <input id="mcp-name" name="name" required maxlength="30" pattern="[a-z0-9](-?[a-z0-9])*"
      /></label>
      <label for="mcp-url"
        >URL <input id="mcp-url" name="url" required maxlength="2000" placeholder="https://…"
      /></label>
      <label for="mcp-headers"
        >Headers (one <code>Name: value</code> a line)
        <textarea id="mcp-headers" name="headers" rows="2" maxlength="8000"></textarea>
      </label>
      <label for="mcp-auth"
        ><input id="mcp-auth" type="checkbox" name="auth" value="oauth" /> OAuth (Connect on its row once added)</label
      >
      <button type="submit">Add</button>
    </form>`;
}

/** The Health page's section: every MCP server this replica has used, and its state. */
export function mcpServersHealth(rows: readonly McpServerHealth[]): Html {
  if (rows.length === 0) return html``;
  return html`<h2>MCP servers</h2>
    <p>${muted('As this replica sees them. A failing server’s tools are left out of turns until it answers again.')}</p>
    ${table({
      columns: [
        { label: 'Server', rowHeader: true, cell: (r) => html`<code>${r.server}</code>` },
        { label: 'Host', cell: (r) => r.host },
        { label: 'State', cell: (r) => STATE_TEXT[r.state], cellClass: (r) => (r.state === 'ok' ? 'ok' : 'bad') },
        { label: 'Detail', cell: (r) => r.error ?? '' },
        { label: 'Tools on', cell: (r) => `${r.enabled} of ${r.tools}` },
        { label: 'Transport', cell: (r) => r.transport ?? '—' },
        { label: 'Since (UTC)', cell: (r) => (r.since ? utcMinute(r.since) : '—') },
      ],
      rows: [...rows],
      rowKey: { attribute: 'data-mcp-health', of: (r) => `${r.tenantId}/${r.server}` },
    })}`;
}
