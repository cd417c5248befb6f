import type { Hono } from 'hono';
import {
  tenantToolsListRow,
  turnListRow,
  turnOverviewRow,
  approvalCountRow,
  turnSettingsRow,
} from '../../../../data/rows.js';
import { checkReadiness } from '../../ops.js';
import type { ConsoleContext } from '../context.js';
import { html } from 'hono/html';
import { healthPage } from '../pages/health.js';
import { mcpOAuthHealth } from '../pages/mcp-oauth.js';
import { mcpServersHealth } from '../pages/mcp-servers.js';
import { overviewPage } from '../pages/overview.js';
import { feedbackOnOverview } from './feedback.js';
import { turnsPage, type TurnFilters } from '../pages/turns.js';
import { guarded, render } from './respond.js';
import { tenantsView } from './tenants-view.js';

const PAGE_SIZE = 50;
const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The console's pages, each a read (behind the guard: a live session):
 *
 *   GET  /admin/overview?from=&to=     turns, tokens, cached share and cost per tenant; charts per day
 *   GET  /admin/turns?tenant=&platform=&outcome=&flag=&page=
 *   GET  /admin/tenants                toolsets, budgets, API tokens, pending installs
 *   GET  /admin/health                 readiness checks, inbox depth and age, replicas
 */
export function mountPages(app: Hono, ctx: ConsoleContext, replicaName: string): void {
  const { deps, log, now } = ctx;

  app.get(
    '/admin/overview',
    guarded(ctx, 'overview', 'Overview', async (c, p) => {
      const { from, to } = period(c.req.query('from'), c.req.query('to'), now());
      const span = { from: `${from}T00:00:00Z`, to: new Date(Date.parse(to) + DAY_MS).toISOString() };
      const [rows, approvals, feedback] = await Promise.all([
        p.admin('turn_overview', span, turnOverviewRow),
        p.admin('approval_counts', span, approvalCountRow),
        feedbackOnOverview(ctx, p, span),
      ]);
      const days: string[] = [];
      for (let t = Date.parse(from); t <= Date.parse(to); t += DAY_MS) days.push(day(t));
      return render(c, 'Overview', 'overview', html`${overviewPage({ from, to, days, rows, approvals })}${feedback}`);
    }),
  );

  app.get(
    '/admin/turns',
    guarded(ctx, 'turns', 'Turns', async (c, p) => {
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
      // Where each shown turn's settings came from (issue 46): channel, tenant or default.
      const shownIds = rows.slice(0, PAGE_SIZE).map((r) => String(r.id));
      const settings = new Map(
        shownIds.length
          ? (await p.admin('turn_settings', { ids: shownIds }, turnSettingsRow)).map((s) => [s.id, s.settings] as const)
          : [],
      );
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
          settings,
          ...(template ? { traceUrl: (id: string) => template.replaceAll('{trace_id}', encodeURIComponent(id)) } : {}),
        }),
      );
    }),
  );

  app.get(
    '/admin/tenants',
    guarded(ctx, 'tenants', 'Tenants', (c, p) => tenantsView(ctx, c, p)),
  );

  app.get('/admin/health', async (c) => {
    const [ready, stats] = await Promise.all([
      // The same checks as /readyz, the Redis persistence one included when it is required.
      checkReadiness({ ...deps, requireRedisPersistence: deps.config.REDIS_REQUIRE_PERSISTENCE }),
      deps.inbox.stats({ replicas: true }).catch((err: unknown) => {
        log.warn({ err }, 'console: inbox stats unavailable');
        return null;
      }),
    ]);
    // OAuth grants of tenants' MCP servers (issue 44): a revoked or expired one shows here.
    const grants = deps.mcp
      ? await deps.mcp.oauth.overview().catch((err: unknown) => {
          log.warn({ err }, 'console: MCP OAuth grants unavailable');
          return null;
        })
      : [];
    return render(
      c,
      'Health',
      'health',
      html`${healthPage({ ready, stats, inboxKind: deps.inbox.kind, dataKind: deps.data.kind, replicaName })}
      ${mcpOAuthHealth(grants)} ${mcpServersHealth(deps.mcp?.hub.health() ?? [])}`,
    );
  });
}

/** The overview's period from its query: the last 30 days to today by default, a year at most. */
function period(fromQuery: string | undefined, toQuery: string | undefined, at: Date): { from: string; to: string } {
  const today = at.toISOString().slice(0, 10);
  // A date of the right shape may still be none (2026-13-01): checked before a default counts from it.
  const valid = (q: string | undefined) => (q && DATE.test(q) && !Number.isNaN(Date.parse(q)) ? q : undefined);
  const to = valid(toQuery) ?? today;
  let from = valid(fromQuery) ?? day(Date.parse(to) - 29 * DAY_MS);
  if (from > to) from = day(Date.parse(to) - 29 * DAY_MS);
  // At most a year of bars.
  if (Date.parse(to) - Date.parse(from) > 366 * DAY_MS) from = day(Date.parse(to) - 366 * DAY_MS);
  return { from, to };
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
