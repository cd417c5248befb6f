import type { Context, Hono } from 'hono';
import type { AdminDataPort } from '../../../../data/rpc-port.js';
import { memoryAdminRow, memoryCountRow, memoryScope } from '../../../../data/rows.js';
import type { ConsoleContext } from '../context.js';
import { memoryPage, type MemoryNotice } from '../pages/memory.js';
import { guarded, render, sessionOf, type PageStatus } from './respond.js';

const SHOWN_PER_TENANT = 200;

/**
 * The memory page, read afresh: `GET /admin/memory`, and the answer to its Forget form when the
 * note could not be forgotten (why, above the notes).
 */
export async function memoryView(
  c: Context,
  p: AdminDataPort,
  notice?: MemoryNotice,
  status: PageStatus = 200,
): Promise<Response> {
  const counts = await p.admin('memory_counts', {}, memoryCountRow);
  const tenants = [...new Set(counts.filter((r) => r.scope !== 'user').map((r) => r.slug))];
  const notes = (
    await Promise.all(
      tenants.map(async (tenant) =>
        (
          await p.admin(
            'memory_admin_list',
            { tenant, scopes: ['team', 'channel'], limit: SHOWN_PER_TENANT },
            memoryAdminRow,
          )
        ).map((n) => ({ ...n, tenant })),
      ),
    )
  ).flat();
  return render(
    c,
    'Memory',
    'memory',
    memoryPage({ counts, notes, shownPerTenant: SHOWN_PER_TENANT, csrf: sessionOf(c).csrf, notice }),
    status,
  );
}

/**
 * After a note was forgotten (routes/memory-forget.ts redirects here): its scope from a fixed
 * list and the tenant as the database names it, so no text from the query reaches the page.
 */
async function forgottenNotice(c: Context, p: AdminDataPort): Promise<MemoryNotice | undefined> {
  if (c.req.query('notice') !== 'forgotten') return undefined;
  const scope = memoryScope.safeParse(c.req.query('scope'));
  const tenant = await p.tenantBySlug(c.req.query('tenant') ?? '');
  if (!scope.success || scope.data === 'user' || !tenant?.slug) return undefined;
  return {
    text: `Forgotten: a ${scope.data} note of ${tenant.slug}. It is no longer listed here or recalled in any turn.`,
  };
}

/** `GET /admin/memory` (issue 45): notes per tenant and scope; team and channel notes listed, each with Forget. */
export function mountMemoryPage(app: Hono, ctx: ConsoleContext): void {
  app.get(
    '/admin/memory',
    guarded(ctx, 'memory', 'Memory', async (c, p) => memoryView(c, p, await forgottenNotice(c, p))),
  );
}
