import { hostname } from 'node:os';
import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ConsoleContext, ConsoleDeps } from './context.js';
import { CONSOLE_CSS } from './layout.js';
import { mountActions } from './routes/actions.js';
import { mountMcpOAuth } from './routes/mcp-oauth.js';
import { mountChannelActions } from './routes/channel-actions.js';
import { mountMcpActions } from './routes/mcp-actions.js';
import { headers, off, sessionGuard } from './routes/guard.js';
import { mountMemoryPage } from './routes/memory.js';
import { mountMemoryForget } from './routes/memory-forget.js';
import { mountFeedbackRoutes } from './routes/feedback.js';
import { mountPages } from './routes/pages.js';
import { mountSignIn } from './routes/sign-in.js';
import { readSession, sessionKeys } from './session.js';

export type { ConsoleDeps } from './context.js';

/**
 * The operator console, `/admin`: server-rendered HTML (hono/html, escaped), no script, no
 * external asset. Off (404 with a hint) without ADMIN_TOKEN: closed by default like every route
 * (access.ts). With it, every page but the sign-in and the stylesheet needs a session (see
 * session.ts), and every POST the session's CSRF token (routes/guard.ts).
 *
 *   GET  /admin/login, POST /admin/login, POST /admin/logout, POST /admin/logout/everywhere
 *                                      the session (routes/sign-in.ts)
 *   GET  /admin/overview, /admin/turns, /admin/tenants, /admin/memory, /admin/health
 *                                      the pages (routes/pages.ts; their HTML in pages/)
 *   POST /admin/tokens, /admin/tokens/revoke, /admin/installs/decide
 *                                      the tenants page's forms (routes/actions.ts)
 *   POST /admin/memory/forget          the memory page's Forget (routes/memory-forget.ts)
 */
export function mountConsole(app: Hono, deps: ConsoleDeps): void {
  const { adminToken, log } = deps;
  const now = deps.now ?? (() => new Date());
  const keys = adminToken ? sessionKeys(adminToken) : undefined;
  const ctx: ConsoleContext = {
    deps,
    log,
    now,
    trustProxy: deps.config.TRUST_PROXY ?? 0,
    adminToken,
    keys,
    liveSession: async (c: Context) => {
      if (!keys) return null;
      try {
        return await readSession(c, keys, deps.kv, now().getTime());
      } catch (err) {
        log.error({ err, path: c.req.path }, 'console: the session store could not be read');
        return 'unavailable';
      }
    },
  };

  app.use('/admin', headers);
  app.use('/admin/*', headers);
  // Forms are small: refused before they are read into memory.
  app.use('/admin/*', bodyLimit({ maxSize: 64 * 1024, onError: (c) => c.text('The form is larger than 64 KB.', 413) }));
  app.get('/admin/console.css', (c) =>
    c.body(CONSOLE_CSS, 200, { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'max-age=300' }),
  );
  app.use('/admin/*', sessionGuard(ctx));
  app.get('/admin', (c) => (keys ? c.redirect('/admin/overview', 303) : off(c)));

  mountSignIn(app, ctx);
  mountPages(app, ctx, `${hostname()}-${process.pid}`);
  mountActions(app, ctx);
  mountMcpOAuth(app, ctx);
  mountChannelActions(app, ctx);
  if (deps.mcp) mountMcpActions(app, ctx, deps.mcp);
  mountMemoryPage(app, ctx);
  mountMemoryForget(app, ctx);
  mountFeedbackRoutes(app, ctx);
}
