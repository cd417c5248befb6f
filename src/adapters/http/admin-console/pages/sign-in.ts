import { html } from 'hono/html';
import type { Html } from '../layout.js';
import { csrfField, notice } from '../parts.js';

/** GET /admin/login: ADMIN_TOKEN typed into a password field (its focus first, Enter signs in). */
export function signInPage(opts: { csrf: string; error?: string }): Html {
  return html`<div class="signin">
    ${opts.error ? notice(opts.error, { error: true, role: 'alert' }) : ''}
    <p class="muted">Sign in with the server's <code>ADMIN_TOKEN</code>.</p>
    <form method="post" action="/admin/login">
      ${csrfField(opts.csrf)}
      <label for="token"
        >Admin token
        <input id="token" name="token" type="password" autocomplete="current-password" required autofocus />
      </label>
      <button type="submit" class="primary">Sign in</button>
    </form>
  </div>`;
}
