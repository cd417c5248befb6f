import { importRows } from '../../../src/data/import/run.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import { tenantListRow } from '../../../src/data/rows.js';
import type { RecordedRequest } from '../../fakes/openai-server.js';
import { sentMessages } from '../../helpers/harness.js';
import { unfence } from '../../helpers/fence.js';

/** A tenant of its own, reachable as the Slack workspace `workspace`, with these competitors. */
export async function addTenant(
  port: AdminDataPort,
  slug: string,
  competitors: { key: string; display_name: string; full_description: string }[],
): Promise<{ id: string; workspace: string }> {
  const owner = await port.defaultTenant();
  await importRows(port, 'tenants', owner.id, [{ slug, name: `Tenant ${slug}` }]);
  const id = (await port.admin('list_tenants', {}, tenantListRow)).find((t) => t.slug === slug)?.id;
  if (!id) throw new Error(`tenant ${slug} was not created`);
  if (competitors.length) await importRows(port, 'competitors', id, competitors);
  const workspace = `T-${slug.toUpperCase()}`;
  await importRows(port, 'tenant_workspaces', id, [{ platform: 'slack', workspace_id: workspace }]);
  return { id, workspace };
}

export async function deleteCompetitor(port: AdminDataPort, tenantId: string, key: string): Promise<void> {
  const sql = port.transport.sql;
  if (!sql) throw new Error('this transport has no SQL client');
  await sql.query('delete from public.competitors where tenant_id = $1 and key = $2', [tenantId, key]);
}

interface SentTool {
  function: { name: string; parameters: { properties: Record<string, { enum?: string[]; description?: string }> } };
}

/** The `competitor_id` enum lookup_competitor was offered with, or undefined when it was not offered. */
export function offeredIds(request: RecordedRequest | undefined): string[] | undefined {
  const tools = (request?.body.tools ?? []) as SentTool[];
  const tool = tools.find((t) => t.function.name === 'lookup_competitor');
  return tool?.function.parameters.properties.competitor_id?.enum;
}

/** Everything the request's system messages said, joined. */
export function systemText(request: RecordedRequest | undefined): string {
  if (!request) return '';
  return sentMessages(request.body)
    .filter((m) => m.role === 'system')
    .map((m) => String(m.content))
    .join('\n---\n');
}

export function toolResults(request: RecordedRequest | undefined): unknown[] {
  if (!request) return [];
  return sentMessages(request.body)
    .filter((m) => m.role === 'tool')
    .map((m) => unfence(m.content));
}
