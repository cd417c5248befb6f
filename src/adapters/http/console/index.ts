import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { html } from 'hono/html';
import type { Config } from '../../../config.js';
import { DataError, type DataPort } from '../../../contract/data.js';
import { createApiToken, listApiTokens, revokeApiToken } from '../../../data/api-tokens.js';
import { isAdminPort, type AdminDataPort } from '../../../data/rpc-port.js';
import {
  tenantToolsListRow,
  turnListRow,
  turnOverviewRow,
  workspaceDecisionRow,
  workspaceRequestRow,
} from '../../../data/rows.js';
import type { Logger } from '../../../logger.js';
import type { KvStore } from '../../../state/kv.js';
import type { Inbox } from '../../../turns/index.js';
import type { PlatformAdapter } from '../../platform.js';
import { clientAddress } from '../access.js';
import { checkReadiness } from '../ops.js';
import { CONSOLE_CSS, CONTENT_SECURITY_POLICY, page, type Html, type PageName } from './layout.js';
import { healthPage, overviewPage, signInPage, tenantsPage, turnsPage, type TurnFilters } from './pages.js';
import {
  csrfMatches,
  endSession,
  isHttps,
  readSession,
  sessionKeys,
  signInCsrf,
  signInCsrfMatches,
  startSession,
  tokenMatches,
  type Session,
} from './session.js';

/**
 * The operator console, `/admin`: server-rendered HTML (hono/html, escaped), no script, no
 * external asset. Off (404 with a hint) without ADMIN_TOKEN: closed by default like every route
 * (access.ts). With it, every page but the sign-in and the stylesheet needs a session (see
 * session.ts), and every POST the session's CSRF token.
 *
 *   GET  /admin/login, POST /admin/login, POST /admin/logout
 *   GET  /admin/overview?from=&to=     turns, tokens, cached share and cost per tenant; charts per day
 *   GET  /admin/turns?tenant=&platform=&outcome=&flag=&page=
 *   GET  /admin/tenants                toolsets, budgets, API tokens, pending installs
 *   POST /admin/tokens, /admin/tokens/revoke, /admin/installs/decide
 *   GET  /admin/health                 readiness checks, inbox depth and age, replicas
 */
export interface ConsoleDeps {
  adminToken: string | undefined;
  data: DataPort;
  kv: KvStore;
  inbox: Inbox;
  adapters: PlatformAdapter[];
  log: Logger;
  config: Pick<
    Config,
    | 'TRUST_PROXY'
    | 'TRACE_URL_TEMPLATE'
    | 'TOKEN_BUDGET_PER_USER_DAILY'
    | 'TOKEN_BUDGET_PER_TENANT_MONTHLY'
    | 'BUDGET_USD_PER_TENANT_MONTHLY'
  >;
  /** How long a wrong token waits before its answer (default 750 ms): guessing stays slow. */
  signInDelayMs?: number;
  now?: () => Date;
}

const PAGE_SIZE = 50;
const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** Notices a redirect may name (by key: no text from the query reaches the page). */
const NOTICES: Record<string, string> = {
  revoked: 'The token was revoked.',
  approved: 'The workspace was approved: its next event is answered (other replicas within 10 s).',
  rejected: 'The request was dropped.',
};

export function mountConsole(app: Hono, deps: ConsoleDeps): void {
  const { adminToken, log } = deps;
  const now = deps.now ?? (() => new Date());
  const trustProxy = deps.config.TRUST_PROXY ?? 0;
  const keys = adminToken ? sessionKeys(adminToken) : undefined;
  const replicaName = `${hostname()}-${process.pid}`;
  /**
   * Wrong tokens wait their turn one after another, across all requests: a guesser gets about
   * one try per delay however many connections it opens. A right token never waits in this line.
   */
  let refusals: Promise<void> = Promise.resolve();
  const refusalDelay = () => (refusals = refusals.then(() => sleep(deps.signInDelayMs ?? 750)));

  app.use('/admin', headers);
  app.use('/admin/*', headers);
  // Forms are small: refused before they are read into memory.
  app.use('/admin/*', bodyLimit({ maxSize: 64 * 1024, onError: (c) => c.text('The form is larger than 64 KB.', 413) }));
  app.get('/admin/console.css', (c) =>
    c.body(CONSOLE_CSS, 200, { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'max-age=300' }),
  );

  // Off without ADMIN_TOKEN; otherwise a session for everything but the sign-in.
  app.use('/admin/*', async (c, next) => {
    if (!keys || !adminToken) return off(c);
    if (c.req.path === '/admin/login' || c.req.path === '/admin/console.css') return next();
    const session = await readSession(c, keys, now().getTime());
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
  });
  app.get('/admin', (c) => (keys ? c.redirect('/admin/overview', 303) : off(c)));

  app.get('/admin/login', async (c) => {
    if (!keys) return off(c);
    if (await readSession(c, keys, now().getTime())) return c.redirect('/admin/overview', 303);
    const csrf = signInCsrf(c, keys, isHttps(c, trustProxy));
    return c.html(page({ title: 'Sign in', body: signInPage({ csrf }) }));
  });

  app.post('/admin/login', async (c) => {
    if (!keys || !adminToken) return off(c);
    const form = await c.req.parseBody();
    const secure = isHttps(c, trustProxy);
    if (!signInCsrfMatches(c, keys, form.csrf)) {
      const csrf = signInCsrf(c, keys, secure);
      return c.html(
        page({ title: 'Sign in', body: signInPage({ csrf, error: 'The sign-in form had expired. Try again.' }) }),
        403,
      );
    }
    if (typeof form.token !== 'string' || !tokenMatches(form.token, adminToken)) {
      // No session, and a pause: a guesser gets a couple of tries a second per connection.
      await refusalDelay();
      log.warn({ address: clientAddress(c, trustProxy), code: 'unauthorized' }, 'console: sign-in with a wrong token');
      const csrf = signInCsrf(c, keys, secure);
      return c.html(page({ title: 'Sign in', body: signInPage({ csrf, error: 'That is not the admin token.' }) }), 401);
    }
    await startSession(c, keys, secure, now().getTime());
    log.info({ address: clientAddress(c, trustProxy) }, 'console: signed in');
    return c.redirect('/admin/overview', 303);
  });

  app.post('/admin/logout', (c) => {
    endSession(c);
    return c.redirect('/admin/login', 303);
  });

  const port = (): AdminDataPort | null => (isAdminPort(deps.data) ? deps.data : null);
  const session = (c: Context): Session => c.get('consoleSession');
  const render = (c: Context, title: string, current: PageName, body: Html, status: 200 | 201 | 400 | 404 = 200) =>
    c.html(page({ title, current, csrf: session(c).csrf, body }), status);
  /** A page whose database reads failed: said plainly, logged with the cause. */
  const guarded =
    (current: PageName, title: string, fn: (c: Context, p: AdminDataPort) => Promise<Response>) =>
    async (c: Context) => {
      const p = port();
      if (!p)
        return c.html(
          page({
            title,
            current,
            csrf: session(c).csrf,
            body: html`<p>This data source offers no admin functions.</p>`,
          }),
          503,
        );
      try {
        return await fn(c, p);
      } catch (err) {
        log.error({ err, path: c.req.path }, 'console page failed');
        return c.html(
          page({
            title,
            current,
            csrf: session(c).csrf,
            body: html`<p class="notice error" role="alert">
              The database could not answer. It has been logged; try again shortly.
            </p>`,
          }),
          503,
        );
      }
    };

  app.get(
    '/admin/overview',
    guarded('overview', 'Overview', async (c, p) => {
      const today = now().toISOString().slice(0, 10);
      let to = DATE.test(c.req.query('to') ?? '') ? c.req.query('to')! : today;
      let from = DATE.test(c.req.query('from') ?? '') ? c.req.query('from')! : day(Date.parse(to) - 29 * DAY_MS);
      if (Number.isNaN(Date.parse(to))) to = today;
      if (Number.isNaN(Date.parse(from)) || from > to) from = day(Date.parse(to) - 29 * DAY_MS);
      // At most a year of bars.
      if (Date.parse(to) - Date.parse(from) > 366 * DAY_MS) from = day(Date.parse(to) - 366 * DAY_MS);
      const rows = await p.admin(
        'turn_overview',
        { from: `${from}T00:00:00Z`, to: new Date(Date.parse(to) + DAY_MS).toISOString() },
        turnOverviewRow,
      );
      const days: string[] = [];
      for (let t = Date.parse(from); t <= Date.parse(to); t += DAY_MS) days.push(day(t));
      return render(c, 'Overview', 'overview', overviewPage({ from, to, days, rows }));
    }),
  );

  app.get(
    '/admin/turns',
    guarded('turns', 'Turns', async (c, p) => {
      const pick = (name: keyof TurnFilters) => {
        const v = c.req.query(name)?.trim();
        return v && /^[\w-]{1,64}$/.test(v) ? v : undefined;
      };
      const filters: TurnFilters = {};
      for (const k of ['tenant', 'platform', 'outcome', 'flag'] as const) {
        const v = pick(k);
        if (v) filters[k] = v;
      }
      const pageNo = Math.min(10_000, Math.max(1, Number.parseInt(c.req.query('page') ?? '1', 10) || 1));
      const [rows, tenants] = await Promise.all([
        p.admin('list_turns', { ...filters, offset: (pageNo - 1) * PAGE_SIZE, limit: PAGE_SIZE + 1 }, turnListRow),
        p.admin('list_tenant_tools', {}, tenantToolsListRow),
      ]);
      const template = deps.config.TRACE_URL_TEMPLATE;
      return render(
        c,
        'Turns',
        'turns',
        turnsPage({
          rows: rows.slice(0, PAGE_SIZE),
          filters,
          tenants: tenants.map((t) => t.slug),
          page: pageNo,
          hasNext: rows.length > PAGE_SIZE,
          ...(template ? { traceUrl: (id: string) => template.replaceAll('{trace_id}', encodeURIComponent(id)) } : {}),
        }),
      );
    }),
  );

  async function tenantsView(
    c: Context,
    p: AdminDataPort,
    extra: { notice?: { text: string; error?: boolean }; newToken?: Awaited<ReturnType<typeof createApiToken>> } = {},
    status: 200 | 201 | 400 | 404 = 200,
  ): Promise<Response> {
    const at = now();
    const monthStart = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
    const monthEnd = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
    const [tenants, tokens, requests] = await Promise.all([
      p.admin('list_tenant_tools', {}, tenantToolsListRow),
      listApiTokens(p),
      p.admin('list_workspace_requests', {}, workspaceRequestRow),
    ]);
    const usage = new Map(
      await Promise.all(
        tenants.map(async (t) => {
          const u = await p.usageTotals({ tenant: t.slug, from: monthStart, to: monthEnd });
          return [t.slug, u ? { tokens: u.promptTokens + u.completionTokens, costUsd: u.costUsd } : null] as const;
        }),
      ),
    );
    const notice =
      extra.notice ?? (NOTICES[c.req.query('notice') ?? ''] ? { text: NOTICES[c.req.query('notice')!]! } : undefined);
    const cfg = deps.config;
    return render(
      c,
      'Tenants',
      'tenants',
      tenantsPage({
        csrf: session(c).csrf,
        tenants,
        usage,
        budgets: {
          ...(cfg.TOKEN_BUDGET_PER_USER_DAILY ? { perUserDaily: cfg.TOKEN_BUDGET_PER_USER_DAILY } : {}),
          ...(cfg.TOKEN_BUDGET_PER_TENANT_MONTHLY ? { perTenantMonthly: cfg.TOKEN_BUDGET_PER_TENANT_MONTHLY } : {}),
          ...(cfg.BUDGET_USD_PER_TENANT_MONTHLY ? { usdPerTenantMonthly: cfg.BUDGET_USD_PER_TENANT_MONTHLY } : {}),
        },
        tokens,
        requests,
        ...(notice ? { notice } : {}),
        ...(extra.newToken ? { newToken: extra.newToken } : {}),
      }),
      status,
    );
  }

  app.get(
    '/admin/tenants',
    guarded('tenants', 'Tenants', (c, p) => tenantsView(c, p)),
  );

  /** The database's refusal (unknown tenant, no such token) as a notice; anything else rethrown. */
  const refusal = (err: unknown): string | undefined =>
    err instanceof DataError && err.code === 'invalid_input' && err.detail ? err.detail : undefined;
  const form = (c: Context, name: string): string => {
    const v = (c.get('consoleForm') as Record<string, unknown> | undefined)?.[name];
    return typeof v === 'string' ? v.trim() : '';
  };

  app.post(
    '/admin/tokens',
    guarded('tenants', 'Tenants', async (c, p) => {
      const tenant = form(c, 'tenant');
      const label = form(c, 'label').slice(0, 200);
      try {
        const created = await createApiToken(p, tenant, label || undefined);
        log.info({ tenant: created.record.tenant_slug, tokenId: created.record.id }, 'console: created an API token');
        // The secret is in this response only: never cached.
        c.header('cache-control', 'no-store');
        return tenantsView(c, p, { newToken: created }, 201);
      } catch (err) {
        const why = refusal(err);
        if (!why) throw err;
        return tenantsView(c, p, { notice: { text: why, error: true } }, 400);
      }
    }),
  );

  app.post(
    '/admin/tokens/revoke',
    guarded('tenants', 'Tenants', async (c, p) => {
      try {
        const record = await revokeApiToken(p, form(c, 'id'));
        log.info({ tenant: record.tenant_slug, tokenId: record.id }, 'console: revoked an API token');
        return c.redirect('/admin/tenants?notice=revoked', 303);
      } catch (err) {
        const why = refusal(err);
        if (!why) throw err;
        return tenantsView(c, p, { notice: { text: why, error: true } }, 404);
      }
    }),
  );

  app.post(
    '/admin/installs/decide',
    guarded('tenants', 'Tenants', async (c, p) => {
      const approve = form(c, 'decision') === 'approve';
      const platform = form(c, 'platform');
      const workspaceId = form(c, 'workspace_id');
      try {
        const [row] = await p.admin(
          'decide_workspace_request',
          { platform, workspace_id: workspaceId, tenant: approve ? form(c, 'tenant') : null },
          workspaceDecisionRow,
        );
        // This replica answers the workspace's next event at once (a refusal may be cached).
        p.forgetTenants?.();
        log.info(
          { platform, workspaceId, tenant: row?.tenant_slug ?? null },
          approve ? 'console: approved a workspace' : 'console: rejected a workspace',
        );
        return c.redirect(`/admin/tenants?notice=${approve ? 'approved' : 'rejected'}`, 303);
      } catch (err) {
        const why = refusal(err);
        if (!why) throw err;
        return tenantsView(c, p, { notice: { text: why, error: true } }, 400);
      }
    }),
  );

  app.get('/admin/health', async (c) => {
    const [ready, stats] = await Promise.all([
      checkReadiness(deps),
      deps.inbox.stats({ replicas: true }).catch((err: unknown) => {
        log.warn({ err }, 'console: inbox stats unavailable');
        return null;
      }),
    ]);
    return render(
      c,
      'Health',
      'health',
      healthPage({ ready, stats, inboxKind: deps.inbox.kind, dataKind: deps.data.kind, replicaName }),
    );
  });
}

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by the console's guard: the signed-in session. */
    consoleSession: Session;
    /** Set by the console's guard on a POST: the parsed form (its CSRF token checked). */
    consoleForm: Record<string, unknown>;
  }
}

/** Every console response: the CSP, no sniffing, no referrer, not cached, not framed. */
async function headers(c: Context, next: () => Promise<void>): Promise<void> {
  await next();
  c.header('content-security-policy', CONTENT_SECURITY_POLICY);
  c.header('x-content-type-options', 'nosniff');
  c.header('referrer-policy', 'no-referrer');
  c.header('x-frame-options', 'DENY');
  if (!c.res.headers.get('cache-control')) c.header('cache-control', 'no-store');
}

function off(c: Context): Response | Promise<Response> {
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

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
