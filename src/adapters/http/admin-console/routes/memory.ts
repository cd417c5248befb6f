import type { Hono } from 'hono';
import { memoryAdminRow, memoryCountRow } from '../../../../data/rows.js';
import type { ConsoleContext } from '../context.js';
import { memoryPage } from '../pages/memory.js';
import { guarded, render } from './respond.js';

const SHOWN_PER_TENANT = 200;

/** `GET /admin/memory` (issue 45): notes per tenant and scope; team and channel notes listed. */
export function mountMemoryPage(app: Hono, ctx: ConsoleContext): void {
  app.get(
    '/admin/memory',
    guarded(ctx, 'memory', 'Memory', async (c, p) => {
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
      return render(c, 'Memory', 'memory', memoryPage({ counts, notes, shownPerTenant: SHOWN_PER_TENANT }));
    }),
  );
}
