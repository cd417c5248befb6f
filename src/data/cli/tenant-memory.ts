import { DataError } from '../../contract/data.js';
import type { AdminDataPort } from '../rpc-port.js';
import { memoryAdminRow, memoryPurgedRow, memoryScope } from '../rows.js';

/** Every note of a tenant at most (MEMORY_MAX_PER_TENANT's ceiling is far above what one export should hold). */
const EXPORT_LIMIT = 100_000;

export const MEMORY_USAGE = ['memory export <tenant>', 'memory purge <tenant> [user|channel|team]'];

/**
 * `npm run tenants -- memory export|purge <tenant>` (issue 45): a tenant's live notes as JSON lines
 * (id, scope, platform, author, channel, text, dates: what a person asking for their data gets), or
 * deleting them all (or one scope's). Returns the exit code: 2 for a wrong command line.
 */
export async function memoryCommand(
  port: AdminDataPort,
  words: readonly string[],
  out: (line: string) => void,
): Promise<number> {
  const [action, tenant, scope] = words;
  if (!tenant || (action !== 'export' && action !== 'purge') || words.length > 3) return 2;
  if (action === 'export') {
    if (scope !== undefined) return 2;
    const known = await port.tenantBySlug(tenant);
    if (!known) {
      out(`Error: unknown tenant ${tenant}.`);
      return 1;
    }
    const rows = await port.admin('memory_admin_list', { tenant, limit: EXPORT_LIMIT }, memoryAdminRow);
    for (const r of rows) out(JSON.stringify(r));
    return 0;
  }
  const parsedScope = scope === undefined ? undefined : memoryScope.safeParse(scope);
  if (parsedScope && !parsedScope.success) return 2;
  try {
    const [row] = await port.admin(
      'memory_purge',
      { tenant, ...(parsedScope?.success ? { scope: parsedScope.data } : {}) },
      memoryPurgedRow,
    );
    const n = row?.deleted ?? 0;
    out(
      `Tenant ${tenant}: ${n} ${parsedScope?.success ? `${parsedScope.data} ` : ''}note${n === 1 ? '' : 's'} forgotten.`,
    );
    return 0;
  } catch (err) {
    if (err instanceof DataError && err.detail) {
      out(`Error: ${err.detail}.`);
      return 1;
    }
    throw err;
  }
}
