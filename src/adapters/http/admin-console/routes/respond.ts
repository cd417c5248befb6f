import type { Context } from 'hono';
import { html } from 'hono/html';
import { isAdminPort, type AdminDataPort } from '../../../../data/rpc-port.js';
import type { ConsoleContext } from '../context.js';
import { page, type Html, type PageName } from '../layout.js';
import { notice } from '../parts.js';
import type { Session } from '../session.js';

/** How a signed-in page answers: in the shell, its navigation marking the page, with the session's CSRF token. */

export type PageStatus = 200 | 201 | 400 | 403 | 404;

/** The signed-in session of this request (set by the guard, routes/guard.ts). */
export const sessionOf = (c: Context): Session => c.get('consoleSession');

export function render(c: Context, title: string, current: PageName, body: Html, status: PageStatus = 200) {
  return c.html(page({ title, current, csrf: sessionOf(c).csrf, body }), status);
}

/**
 * A page that reads the database through its admin functions. Without them (a data source that
 * offers none) it says so; when a read fails, it says so plainly and the cause is logged.
 */
export function guarded(
  ctx: ConsoleContext,
  current: PageName,
  title: string,
  fn: (c: Context, p: AdminDataPort) => Promise<Response>,
) {
  return async (c: Context): Promise<Response> => {
    const fail = (body: Html) => c.html(page({ title, current, csrf: sessionOf(c).csrf, body }), 503);
    const p = isAdminPort(ctx.deps.data) ? ctx.deps.data : null;
    if (!p) return fail(html`<p>This data source offers no admin functions.</p>`);
    try {
      return await fn(c, p);
    } catch (err) {
      ctx.log.error({ err, path: c.req.path }, 'console page failed');
      return fail(
        notice('The database could not answer. It has been logged; try again shortly.', { error: true, role: 'alert' }),
      );
    }
  };
}
