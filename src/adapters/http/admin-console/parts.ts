import { html } from 'hono/html';
import type { Html } from './layout.js';
import type { Content } from './table.js';

/** The small pieces the console's pages share (the table is table.ts, the shell layout.ts). */

/** A notice above a page's content: `status` for news, `alert` for what went wrong. */
export function notice(text: Content, opts: { error?: boolean; role?: 'status' | 'alert' } = {}): Html {
  return html`<p class="notice${opts.error ? ' error' : ''}" role="${opts.role ?? 'status'}">${text}</p>`;
}

/** Something said aside, in grey. */
export function muted(text: Content): Html {
  return html`<span class="muted">${text}</span>`;
}

export function hidden(name: string, value: string): Html {
  return html`<input type="hidden" name="${name}" value="${value}" />`;
}

/** The session's CSRF token, which every state-changing form carries back (session.ts). */
export function csrfField(csrf: string): Html {
  return hidden('csrf', csrf);
}

/** A labelled drop-down; `all` adds an empty first choice (no filter). */
export function select(opts: {
  id: string;
  name: string;
  label: string;
  values: readonly string[];
  chosen?: string | undefined;
  all?: boolean;
}): Html {
  return html`<label for="${opts.id}"
    >${opts.label}
    <select id="${opts.id}" name="${opts.name}">
      ${opts.all ? html`<option value="">All</option>` : ''}
      ${opts.values.map((v) => html`<option value="${v}" ${v === opts.chosen ? html` selected` : ''}>${v}</option>`)}
    </select></label
  >`;
}
