import type { Context, Hono } from 'hono';
import { DataError } from '../../../../contract/data.js';
import { memoryAdminForgetRow } from '../../../../data/rows.js';
import type { ConsoleContext } from '../context.js';
import { guarded } from './respond.js';
import { memoryView } from './memory.js';

const NOTE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A field of the posted form (parsed, its CSRF token checked, by the guard), trimmed. */
const field = (c: Context, name: string): string => {
  const v = (c.get('consoleForm') as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v.trim() : '';
};

/**
 * The memory page's Forget (issue 45), behind the guard (a live session and its CSRF token):
 *
 *   POST /admin/memory/forget   tenant, id: forgets one team or channel note
 *                               → /admin/memory?notice=forgotten&scope=…&tenant=…
 *
 * A person's own note is never the console's to forget (it is counted there, never listed): the
 * database refuses it (`memory_admin_forget`) and the page says so. A note already gone, or not
 * the tenant's, is said to be gone. Every outcome is logged without the note's text. Recall reads
 * the database on every turn, so every replica stops recalling the note at once.
 */
export function mountMemoryForget(app: Hono, ctx: ConsoleContext): void {
  const { log } = ctx;

  app.post(
    '/admin/memory/forget',
    guarded(ctx, 'memory', 'Memory', async (c, p) => {
      const tenant = field(c, 'tenant');
      const id = field(c, 'id');
      const refused = (code: string, text: string, status: 400 | 403 | 404) => {
        log.info({ event: 'memory_forget_refused', via: 'console', tenant, code }, 'console: a note was not forgotten');
        return memoryView(c, p, { text, error: true }, status);
      };
      if (!tenant) return refused('no_tenant', 'Choose the tenant whose note to forget.', 400);
      const gone = `That note is already gone: tenant ${tenant} has no note with that id (it was forgotten already, or it expired). Nothing was changed.`;
      if (!NOTE_ID.test(id)) return refused('not_found', gone, 404);
      let row;
      try {
        [row] = await p.admin('memory_admin_forget', { tenant, id }, memoryAdminForgetRow);
      } catch (err) {
        if (err instanceof DataError && err.code === 'invalid_input' && err.detail)
          return refused('unknown_tenant', `Cannot forget the note: ${err.detail}.`, 404);
        throw err;
      }
      if (row?.status === 'not_allowed')
        return refused(
          'not_allowed',
          `Not allowed: that is a person's own note. The console counts those and never shows or forgets them; the person forgets it with /memory, or run npm run tenants -- memory purge ${tenant} user to delete every person's notes of the tenant.`,
          403,
        );
      if (row?.status !== 'forgotten' || !row.scope) return refused('not_found', gone, 404);
      log.info(
        { event: 'memory_forgotten', via: 'console', scope: row.scope, tenant },
        'console: forgot a memory note',
      );
      const query = new URLSearchParams({ notice: 'forgotten', scope: row.scope, tenant });
      return c.redirect(`/admin/memory?${query.toString()}`, 303);
    }),
  );
}
