import { randomBytes } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { deleteCookie, getSignedCookie, setSignedCookie } from 'hono/cookie';
import { html } from 'hono/html';
import { isAdminPort } from '../../../../data/rpc-port.js';
import { ConsentError, CONSENT_TTL_MS, MCP_OAUTH_CALLBACK_PATH } from '../../../../mcp/oauth.js';
import type { McpServer } from '../../../../mcp/store.js';
import type { ConsoleContext } from '../context.js';
import { page } from '../layout.js';
import { notice } from '../parts.js';
import { isHttps } from '../session.js';
import { render } from './respond.js';

/**
 * OAuth consent for a tenant's MCP server (issue 44, item 2; src/mcp/oauth.ts), from the console.
 *
 *   POST /admin/mcp/connect           `Connect` on a server's row (a live session and its CSRF
 *                                     token, as every console form): discovery, client
 *                                     registration, PKCE; answers with the link to the
 *                                     authorization server (a link, not a redirect: the console's
 *                                     CSP allows forms to post to itself only)
 *   GET  /admin/mcp/oauth/callback    where the authorization server sends the browser back
 *   POST /admin/mcp/client-id         the client id registered by hand, for a server whose
 *                                     authorization server offers no registration
 *
 * The console's session cookie is SameSite=Strict, so the browser does not send it on the
 * authorization server's redirect back. The consent is bound instead to a flow cookie (random,
 * signed with the console's key, HttpOnly, SameSite=Lax so that redirect carries it, Path the
 * callback's, ten minutes) that only `Connect`, with a live session and its CSRF token, sets; the
 * callback needs it and the one-time `state`, whose hash and the cookie's were recorded (sealed)
 * when the consent began. The guard lets the callback through without a session for that reason.
 */
const FLOW_COOKIE = 'sb_mcp_oauth';

export function mountMcpOAuth(app: Hono, ctx: ConsoleContext): void {
  const { log } = ctx;
  const title = 'Connect an MCP server';
  const field = (c: Context, name: string): string => {
    const v = c.get('consoleForm')[name];
    return typeof v === 'string' ? v.trim() : '';
  };
  const fail = (c: Context, text: string, status: 400 | 404 = 400) =>
    render(c, title, 'tenants', notice(text, { error: true, role: 'alert' }), status);

  /** The form's server, or why not. */
  const serverOf = async (c: Context): Promise<McpServer | string> => {
    const mcp = ctx.deps.mcp;
    if (!mcp || !isAdminPort(ctx.deps.data)) return 'MCP servers need a database with admin functions.';
    const tenant = await ctx.deps.data.tenantBySlug(field(c, 'tenant'));
    const server = tenant ? await mcp.store.get(tenant.id, field(c, 'server')) : undefined;
    if (!server) return `No MCP server "${field(c, 'server')}" for tenant "${field(c, 'tenant')}".`;
    if (server.authKind !== 'oauth')
      return `The MCP server "${server.name}" uses headers, not OAuth: nothing to connect.`;
    return server;
  };

  app.post('/admin/mcp/connect', async (c) => {
    const server = await serverOf(c);
    if (typeof server === 'string') return fail(c, server, 404);
    const nonce = randomBytes(32).toString('base64url');
    // The console's own address as the browser reached it (https when a trusted proxy says so), unless configured.
    const own = new URL(MCP_OAUTH_CALLBACK_PATH, c.req.url);
    if (isHttps(c, ctx.trustProxy)) own.protocol = 'https:';
    const redirectUrl = ctx.deps.config.MCP_OAUTH_REDIRECT_URL ?? own.href;
    let target: URL;
    try {
      target = await ctx.deps.mcp!.oauth.beginConsent(server, { redirectUrl, bindingNonce: nonce });
    } catch (err) {
      // A refusal the operator reads on the page (no registration offered, unreachable) is info; anything else warn.
      log[err instanceof ConsentError ? 'info' : 'warn'](
        { err, tenant: server.tenantId, mcpServer: server.name },
        'console: an MCP OAuth consent could not start',
      );
      return fail(
        c,
        err instanceof ConsentError
          ? `Cannot connect ${server.name}: ${err.message}.`
          : 'The consent could not start. It has been logged.',
      );
    }
    await setSignedCookie(c, FLOW_COOKIE, nonce, ctx.keys!.cookie, {
      path: MCP_OAUTH_CALLBACK_PATH,
      httpOnly: true,
      sameSite: 'Lax',
      secure: isHttps(c, ctx.trustProxy),
      maxAge: CONSENT_TTL_MS / 1000,
    });
    log.info({ tenant: server.tenantId, mcpServer: server.name }, 'console: started an MCP OAuth consent');
    return render(
      c,
      title,
      'tenants',
      html`<h1>Connect ${server.name}</h1>
        <p>
          Sign in at <strong>${target.host}</strong> and allow Switchboard to use <code>${server.name}</code> for this
          tenant. You come back here when it is done (within ten minutes).
        </p>
        <p><a class="button" id="continue" href="${target.href}" rel="noreferrer">Continue to ${target.host}</a></p>`,
    );
  });

  app.post('/admin/mcp/client-id', async (c) => {
    const server = await serverOf(c);
    if (typeof server === 'string') return fail(c, server, 404);
    const clientId = field(c, 'client_id');
    if (clientId.length > 500) return fail(c, 'The client id is longer than 500 characters.');
    await ctx.deps.mcp!.oauth.setClientId(server, clientId || null);
    log.info(
      { tenant: server.tenantId, mcpServer: server.name, configured: clientId !== '' },
      'console: set an MCP server’s OAuth client id',
    );
    return c.redirect('/admin/tenants?notice=mcp_client_id', 303);
  });

  // No console session here (see above): the flow cookie and the state are the proof.
  app.get(MCP_OAUTH_CALLBACK_PATH, async (c) => {
    const done = (text: string, ok: boolean, status: 200 | 400 | 503) =>
      c.html(
        page({
          title,
          body: html`${notice(text, ok ? {} : { error: true, role: 'alert' })}
            <p><a href="/admin/health">Health</a> · <a href="/admin/tenants">Tenants</a></p>`,
        }),
        status,
      );
    const mcp = ctx.deps.mcp;
    if (!mcp || !ctx.keys) return done('MCP servers are not available on this server.', false, 503);
    const nonce = (await getSignedCookie(c, ctx.keys.cookie, FLOW_COOKIE)) || undefined;
    deleteCookie(c, FLOW_COOKIE, { path: MCP_OAUTH_CALLBACK_PATH });
    const error = c.req.query('error');
    if (error) {
      log.info({ code: error.slice(0, 60) }, 'console: an MCP OAuth consent was declined');
      return done(
        `The authorization server did not grant access (${error.slice(0, 60)}). Press Connect to try again.`,
        false,
        400,
      );
    }
    const state = c.req.query('state') ?? '';
    const code = c.req.query('code') ?? '';
    if (!state || !code || state.length > 400 || code.length > 2_000)
      return done('This link is missing its state or code. Press Connect to try again.', false, 400);
    try {
      const server = await mcp.oauth.completeConsent({ state, code, bindingNonce: nonce });
      // Its tools can be listed now: this replica forgets what it knew of the tenant's servers.
      mcp.hub.invalidate(server.tenantId);
      return done(`Connected ${server.name}: its tools are offered from the next turn on.`, true, 200);
    } catch (err) {
      if (err instanceof ConsentError) {
        log.warn({ code: 'mcp_oauth_consent', reason: err.message }, 'console: an MCP OAuth consent was refused');
        return done(`Not connected: ${err.message}.`, false, 400);
      }
      log.error({ err }, 'console: an MCP OAuth callback failed');
      return done('Not connected: something went wrong. It has been logged; press Connect to try again.', false, 503);
    }
  });
}
