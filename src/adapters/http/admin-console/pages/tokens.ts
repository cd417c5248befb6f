import { html } from 'hono/html';
import type { ApiToken } from '../../../../data/api-tokens.js';
import { utcMinute } from '../format.js';
import type { Html } from '../layout.js';
import { csrfField, hidden, select } from '../parts.js';
import { table } from '../table.js';

/** A token just made: its secret, shown in this one response (only its hash is kept). */
export function newTokenNotice(created: { token: string; record: ApiToken }): Html {
  return html`<div class="notice" role="status">
    <p>New API token for <b>${created.record.tenant_slug}</b>. It is shown this once; only its hash is kept:</p>
    <code class="secret" data-new-token>${created.token}</code>
  </div>`;
}

/** The tenants page's API tokens: the live ones (a prefix, never the secret), each revocable, and a form for a new one. */
export function apiTokens(opts: { csrf: string; tokens: ApiToken[]; tenants: string[] }): Html {
  const { csrf } = opts;
  return html`${table({
      columns: [
        { label: 'Tenant', cell: (t) => t.tenant_slug },
        { label: 'Prefix', cell: (t) => html`<code>${t.prefix}…</code>` },
        { label: 'Label', cell: (t) => t.label ?? '' },
        { label: 'Created (UTC)', cell: (t) => utcMinute(t.created_at) },
        { label: 'Last used', cell: (t) => (t.last_used_at ? utcMinute(t.last_used_at) : 'never') },
        {
          label: 'Revoke',
          cell: (t) =>
            html`<form class="inline" method="post" action="/admin/tokens/revoke">
              ${csrfField(csrf)}${hidden('id', t.id)}
              <button type="submit" class="danger" aria-label="Revoke token ${t.prefix}">Revoke</button>
            </form>`,
        },
      ],
      rows: opts.tokens.filter((t) => !t.revoked_at),
      empty: 'No live API tokens.',
    })}
    <h3>New token</h3>
    <form class="filters" method="post" action="/admin/tokens">
      ${csrfField(csrf)} ${select({ id: 'nt-tenant', name: 'tenant', label: 'Tenant', values: opts.tenants })}
      <label for="nt-label">Label <input id="nt-label" name="label" maxlength="200" /></label>
      <button type="submit" class="primary">Create token</button>
    </form>`;
}
