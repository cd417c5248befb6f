/**
 * The tenant-bound port tools get: every call carries the turn's tenant, added in one place;
 * an argument naming a tenant is refused, so no tool (or cast) can reach another tenant's rows.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantArgs } from '../../src/contract/data.js';
import type { AdminDataPort } from '../../src/data/index.js';
import { embeddingStatusRow } from '../../src/data/rows.js';
import { openPgliteTestPort } from '../helpers/db.js';

let port: AdminDataPort;
beforeAll(async () => {
  port = await openPgliteTestPort();
});
afterAll(async () => {
  await port?.close();
});

describe('data.forTenant', () => {
  it('adds the tenant to every call: the demo tenant sees its campaigns, another tenant none', async () => {
    const demo = await port.defaultTenant();
    const [mine] = await port.forTenant(demo).call('embedding_status', {}, embeddingStatusRow);
    const [other] = await port.forTenant({ id: randomUUID() }).call('embedding_status', {}, embeddingStatusRow);
    expect(mine!.campaigns).toBeGreaterThan(0);
    expect(other!.campaigns).toBe(0);
  });

  it('refuses an argument that names a tenant, even through a cast', async () => {
    const demo = await port.defaultTenant();
    const smuggled = { tenant_id: demo.id } as unknown as TenantArgs<'embedding_status'>;
    await expect(
      port.forTenant({ id: randomUUID() }).call('embedding_status', smuggled, embeddingStatusRow),
    ).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
