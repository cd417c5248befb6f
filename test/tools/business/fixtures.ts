import { importRows } from '../../../src/data/import/run.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import { tenantListRow } from '../../../src/data/rows.js';
import type { RecordedRequest } from '../../fakes/openai-server.js';
import { sentMessages } from '../../helpers/harness.js';
import { unfence } from '../../helpers/fence.js';

export const B_MARK = 'zanzibarquux';

/** A tenant reachable as the Slack workspace it returns; `business` gives it a business of its own. */
export async function addTenant(
  port: AdminDataPort,
  slug: string,
  business: boolean,
): Promise<{ id: string; workspace: string }> {
  const owner = await port.defaultTenant();
  await importRows(port, 'tenants', owner.id, [{ slug, name: `Tenant ${slug}` }]);
  const id = (await port.admin('list_tenants', {}, tenantListRow)).find((t) => t.slug === slug)?.id;
  if (!id) throw new Error(`tenant ${slug} was not created`);
  const workspace = `T-${slug.toUpperCase()}`;
  await importRows(port, 'tenant_workspaces', id, [{ platform: 'slack', workspace_id: workspace }]);
  if (!business) return { id, workspace };
  // Not linked as the tenant's business_id: the tools must find it on their own.
  await importRows(port, 'businesses', id, [
    {
      slug: `${slug}-biz`,
      name: `B Clinic ${B_MARK}`,
      timezone: 'Europe/Copenhagen',
      services: [{ name: `B massage ${B_MARK}`, duration_minutes: 45, price: 99.5 }],
      working_hours: { monday: [{ open: '09:00', close: '17:00' }] },
    },
  ]);
  await importRows(port, 'bookings', id, [
    // Sarah's number from the demo tenant, booked later here: must never cross over.
    {
      reference: 'B-7',
      customer_name: `B Sarah ${B_MARK}`,
      customer_phone: '+61 412 345 678',
      service: 'B massage',
      booking_datetime: '2027-06-01T10:00:00Z',
      status: 'confirmed',
    },
  ]);
  await importRows(port, 'policies', id, [
    { topic: 'cancellation', title: `B policy ${B_MARK}`, content: `B cancellation ${B_MARK}` },
  ]);
  return { id, workspace };
}

/** Renames a SQL function so calls to it fail like a database that lost it; returns the undo. */
export async function breakFunction(
  port: AdminDataPort,
  signature: string,
  name: string,
): Promise<() => Promise<void>> {
  const sql = port.transport.sql;
  if (!sql) throw new Error('this transport has no SQL client');
  await sql.exec(`alter function public.${name}${signature} rename to ${name}_broken`);
  return () => sql.exec(`alter function public.${name}_broken${signature} rename to ${name}`);
}

/** The tool results the model received in one request. */
export function toolResults(request: RecordedRequest | undefined): string[] {
  if (!request) return [];
  return sentMessages(request.body)
    .filter((m) => m.role === 'tool')
    .map((m) => unfence(m.content));
}
