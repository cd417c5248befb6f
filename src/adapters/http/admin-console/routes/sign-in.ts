import type { Context, Hono } from 'hono';
import { createWrongTokens } from '../../../../security/wrong-tokens.js';
import { clientAddress } from '../../access.js';
import type { ConsoleContext } from '../context.js';
import { page } from '../layout.js';
import { signInPage } from '../pages/sign-in.js';
import { notice } from '../parts.js';
import {
  endEverySession,
  endSession,
  isHttps,
  signInCsrf,
  signInCsrfMatches,
  startSession,
  tokenMatches,
} from '../session.js';
import { off } from './guard.js';

/**
 * The session's routes: GET and POST /admin/login, POST /admin/logout and /admin/logout/everywhere
 * (see session.ts for what a session is).
 */
export function mountSignIn(app: Hono, ctx: ConsoleContext): void {
  const { deps, log, keys, adminToken, trustProxy, now } = ctx;
  /**
   * Wrong tokens wait their turn one after another, and past a few from one address that address
   * is refused for a while, on every replica (security/wrong-tokens.ts). A right token never waits.
   */
  const wrongTokens =
    deps.wrongTokens ??
    createWrongTokens({ log, ...(deps.signInDelayMs !== undefined ? { pauseMs: deps.signInDelayMs } : {}) });

  app.get('/admin/login', async (c) => {
    if (!keys) return off(c);
    const session = await ctx.liveSession(c);
    if (session && session !== 'unavailable') return c.redirect('/admin/overview', 303);
    const csrf = signInCsrf(c, keys, isHttps(c, trustProxy));
    return c.html(page({ title: 'Sign in', body: signInPage({ csrf }) }));
  });

  app.post('/admin/login', async (c) => {
    if (!keys || !adminToken) return off(c);
    const form = await c.req.parseBody();
    const secure = isHttps(c, trustProxy);
    /** The sign-in form again, with a fresh CSRF token and what went wrong. */
    const again = (error: string, status: 401 | 403 | 429 | 503) =>
      c.html(page({ title: 'Sign in', body: signInPage({ csrf: signInCsrf(c, keys, secure), error }) }), status);
    if (!signInCsrfMatches(c, keys, form.csrf)) return again('The sign-in form had expired. Try again.', 403);
    const address = clientAddress(c, trustProxy);
    const matches = typeof form.token === 'string' && tokenMatches(form.token, adminToken);
    // A wrong token: counted and paused. The right one: only if this address is not refused now.
    const decision = matches ? await wrongTokens.admit(address) : await wrongTokens.wrong(address);
    if (!decision.ok) {
      log.debug({ address, code: 'rate_limited' }, 'console: sign-in refused, too many wrong tokens from this address');
      const minutes = Math.ceil(decision.retryAfterSeconds / 60);
      c.header('Retry-After', String(decision.retryAfterSeconds));
      return again(
        `Too many wrong tokens from your address. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
        429,
      );
    }
    if (!matches) {
      log.warn({ address, code: 'unauthorized' }, 'console: sign-in with a wrong token');
      return again('That is not the admin token.', 401);
    }
    try {
      await startSession(c, keys, deps.kv, secure, now().getTime());
    } catch (err) {
      log.error({ err }, 'console: the session store could not be written');
      return again('Sessions cannot be stored right now. It has been logged; try again shortly.', 503);
    }
    log.info({ address }, 'console: signed in');
    return c.redirect('/admin/overview', 303);
  });

  // Behind the guard: a live session and its CSRF token. The id leaves the store, so the same
  // cookie replayed afterwards (on any replica) opens nothing.
  const signOut = (everywhere: boolean) => async (c: Context) => {
    try {
      if (keys) await (everywhere ? endEverySession : endSession)(c, keys, deps.kv, c.get('consoleSession'));
    } catch (err) {
      log.error({ err }, 'console: the session store could not be written; not signed out');
      return c.html(
        page({
          title: 'Not signed out',
          body: notice(
            'The session could not be ended (the shared store is unreachable). It has been logged; try again shortly.',
            { error: true, role: 'alert' },
          ),
        }),
        503,
      );
    }
    log.info(
      { address: clientAddress(c, trustProxy) },
      everywhere ? 'console: signed out every session' : 'console: signed out',
    );
    return c.redirect('/admin/login', 303);
  };
  app.post('/admin/logout', signOut(false));
  app.post('/admin/logout/everywhere', signOut(true));
}
