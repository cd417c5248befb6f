import type { Context, MiddlewareHandler } from 'hono';
import { html } from 'hono/html';
import { pageHeaders } from '../../page-headers.js';
import type { ConsoleContext } from '../context.js';
import { CONTENT_SECURITY_POLICY, page } from '../layout.js';
import { notice } from '../parts.js';
import { csrfMatches, type Session } from '../session.js';
import { MCP_OAUTH_CALLBACK_PATH } from '../../../../mcp/oauth.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by the console's guard: the signed-in session. */
    consoleSession: Session;
    /** Set by the console's guard on a POST: the parsed form (its CSRF token checked). */
    consoleForm: Record<string, unknown>;
  }
}

/**
 * In front of every `/admin/*` route: off without ADMIN_TOKEN; otherwise a live session for
 * everything but the sign-in and the stylesheet, and on a POST the session's CSRF token. A GET
 * without a session goes to the sign-in; a POST is told its session ended (its form is lost).
 */
export function sessionGuard(ctx: ConsoleContext): MiddlewareHandler {
  const { log } = ctx;
  return async (c, next) => {
    if (!ctx.keys || !ctx.adminToken) return off(c);
    if (c.req.path === '/admin/login' || c.req.path === '/admin/console.css') return next();
    // The authorization server's redirect back carries no Strict session cookie: the route checks its own flow cookie and state.
    if (c.req.path === MCP_OAUTH_CALLBACK_PATH && c.req.method === 'GET') return next();
    const session = await ctx.liveSession(c);
    if (session === 'unavailable')
      return c.html(
        page({
          title: 'Unavailable',
          body: notice(
            'Sessions cannot be checked right now (the shared store is unreachable). It has been logged; try again shortly.',
            { error: true, role: 'alert' },
          ),
        }),
        503,
      );
    if (!session) {
      if (c.req.method === 'GET') return c.redirect('/admin/login', 303);
      return c.html(
        page({
          title: 'Signed out',
          body: html`<p>Your session has ended. <a href="/admin/login">Sign in</a> again.</p>`,
        }),
        401,
      );
    }
    if (c.req.method === 'POST') {
      const form = await c.req.parseBody();
      if (!csrfMatches(session, form.csrf)) {
        log.warn({ path: c.req.path, code: 'csrf' }, 'console: a form without its CSRF token was refused');
        return c.html(
          page({ title: 'Refused', body: html`<p>That form had expired. Go back, reload the page and try again.</p>` }),
          403,
        );
      }
      c.set('consoleForm', form);
    }
    c.set('consoleSession', session);
    return next();
  };
}

/** Every console response: the page headers (CSP, no sniffing, no referrer, not framed), not cached. */
const consoleHeaders = pageHeaders(CONTENT_SECURITY_POLICY);
export const headers: MiddlewareHandler = async (c, next) => {
  await consoleHeaders(c, next);
  if (!c.res.headers.get('cache-control')) c.header('cache-control', 'no-store');
};

/** Without ADMIN_TOKEN: a 404 that says how to turn the console on. */
export function off(c: Context): Response | Promise<Response> {
  return c.html(
    page({
      title: 'The console is off',
      body: html`<p>
        The operator console is off on this server: set <code>ADMIN_TOKEN</code> and restart to turn it on
        (docs/admin.md).
      </p>`,
    }),
    404,
  );
}
