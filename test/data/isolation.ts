import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { hashEmbedder, hashEmbedding } from '../../bench/generate-campaigns.js';
import type { ReadFunctionName } from '../../src/contract/catalogue.js';
import { embedMissing } from '../../src/data/embed.js';
import { importRows } from '../../src/data/import/run.js';
import { DataError, type AdminDataPort, type Tenant } from '../../src/data/index.js';
import * as rows from '../../src/data/rows.js';
import { TEST_DIMENSIONS } from '../helpers/db.js';

/**
 * Tenant isolation: tenant B gets rows whose every identifier and text is recognisable;
 * then every function is called with tenant A's id and B's identifiers, and nothing of
 * B may come back. The case table is typed over every read function, so adding a
 * function without an isolation case fails to compile.
 */

const MARK = 'zanzibarquux';

export function defineIsolationTests(getPort: () => AdminDataPort): void {
  describe('tenant isolation', () => {
    let port: AdminDataPort;
    let a: Tenant;
    let bId: string;
    const b = {
      campaignIds: [] as string[],
      businessId: '',
      productId: '',
      bookingRefs: ['B-1', 'B-2'],
      memoryIds: [] as string[],
    };
    /** Strings that exist only in tenant B's data. */
    let secrets: string[] = [];

    let vectors = false;

    beforeAll(async () => {
      port = getPort();
      vectors = port.vectorsAvailable;
      a = await port.defaultTenant();
      await importRows(port, 'tenants', a.id, [{ slug: 'tenant-b', name: `Tenant B ${MARK}` }]);
      const list = await port.admin('list_tenants', {}, rows.tenantListRow);
      bId = list.find((t) => t.slug === 'tenant-b')?.id ?? '';
      const text = `${MARK} wind power no annual fee cashback fixed price unlimited data`;
      await importRows(port, 'campaigns', bId, [
        // Same natural key as a demo campaign of A: keys are per tenant.
        {
          source_key: 'demo-0001',
          company: `B Energy ${MARK}`,
          channel: 'Facebook',
          capture_date: '2026-10-30',
          campaign_text: text,
          offer: `B offer ${MARK}`,
          key_value_props: ['Cash Back', 'Green Energy'],
        },
        {
          source_key: 'b-2',
          company: `B Telecom ${MARK}`,
          channel: 'Instagram',
          capture_date: '2026-10-31',
          campaign_text: text,
          key_value_props: ['Unlimited Data'],
        },
      ]);
      await importRows(port, 'competitors', bId, [
        {
          key: 'only-b',
          display_name: `Only B ${MARK}`,
          full_description: `B SECRET ${MARK}`,
          campaign_key: 'demo-0001',
        },
        { key: 'norlys', display_name: `B's Norlys ${MARK}`, full_description: `B SECRET ${MARK} norlys` },
      ]);
      await importRows(port, 'products', bId, [
        {
          code: 'B-ONLY-PLATE',
          family: 'stainless',
          grade: '304',
          form: 'plate',
          thickness_mm: 10,
          width_mm: 1500,
          length_mm: 3000,
          description: `B plate ${MARK}`,
        },
      ]);
      await importRows(port, 'supplier_prices', bId, [
        {
          product_code: 'B-ONLY-PLATE',
          supplier: `B Supplier ${MARK}`,
          sku: 'B-SKU',
          uom: 'sheet',
          price_per_uom: 1,
          lead_time_days: 0,
        },
      ]);
      await importRows(port, 'businesses', bId, [
        {
          slug: 'b-biz',
          name: `B Clinic ${MARK}`,
          services: [{ name: `B service ${MARK}`, price: 1 }],
          working_hours: { sunday: [{ open: '01:00', close: '02:00' }] },
        },
      ]);
      await importRows(port, 'bookings', bId, [
        {
          reference: 'B-1',
          customer_name: `B customer ${MARK}`,
          customer_phone: '+61 499 000 111',
          service: 'x',
          booking_datetime: '2027-01-01T10:00:00Z',
          status: 'confirmed',
        },
        // Sarah's number again, in B, later than her booking in A.
        {
          reference: 'B-2',
          customer_name: `B Sarah ${MARK}`,
          customer_phone: '+61 412 345 678',
          service: 'x',
          booking_datetime: '2027-06-01T10:00:00Z',
          status: 'confirmed',
        },
      ]);
      await importRows(port, 'policies', bId, [
        { topic: 'cancellation', title: `B ${MARK}`, content: `B SECRET ${MARK}` },
      ]);
      await importRows(port, 'faqs', bId, [
        { topic: 'parking', question: `B parking ${MARK}?`, answer: `B SECRET ${MARK}`, tags: ['parking'] },
      ]);
      await importRows(port, 'tenant_workspaces', bId, [{ platform: 'slack', workspace_id: 'T-B' }]);
      await port.admin(
        'set_channel_settings',
        { tenant: 'tenant-b', channel_id: 'C-B', settings: { instructions: `B SECRET ${MARK}` } },
        rows.channelSettingsListRow,
      );
      if (vectors) await embedMissing(port, hashEmbedder(TEST_DIMENSIONS), { tenantId: bId });
      // Long-term memory (issue 45): B's notes in every scope, written as the same platform ids A's turns use.
      const memoryBase = { tenant_id: bId, platform: 'slack', user_id: 'U-SAME', member: true, max_per_user: 10 };
      const limits = { ...memoryBase, max_per_tenant: 10, ttl_days: 30 };
      for (const scope of ['user', 'channel', 'team'] as const) {
        const [m] = await port.call(
          'memory_add',
          { ...limits, scope, text: `B memory ${MARK} fiscal`, everywhere: true, channel_id: 'C-SAME' },
          rows.memoryAddedRow,
        );
        b.memoryIds.push(m?.id ?? '');
        if (vectors)
          await port.call(
            'memory_set_embedding',
            { tenant_id: bId, id: m?.id ?? '', embedding: hashEmbedding(`B ${MARK}`, TEST_DIMENSIONS) },
            rows.memoryEmbeddingRow,
          );
      }

      const bCampaigns = await port.call('filter_campaigns', { tenant_id: bId }, rows.campaignRow);
      b.campaignIds = bCampaigns.map((c) => c.id);
      b.businessId = (await port.call('get_business', { tenant_id: bId }, rows.businessRow))[0]?.business_id ?? '';
      b.productId = (await port.call('search_products', { tenant_id: bId }, rows.productRow))[0]?.product_id ?? '';
      const bookingIds = (
        await port.call('get_latest_booking', { tenant_id: bId, customer_phone: '+61 499 000 111' }, rows.bookingRow)
      ).map((r) => r.booking_id);
      secrets = [MARK, ...b.campaignIds, b.businessId, b.productId, ...bookingIds, ...b.memoryIds];
      expect(b.campaignIds).toHaveLength(2);
      expect(secrets.every(Boolean)).toBe(true);
    });

    const expectNothingOfB = (result: unknown, fn: string) => {
      const json = JSON.stringify(result);
      for (const s of secrets) expect(json, `${fn} leaked ${s}`).not.toContain(s);
    };

    it('every read function, called as A with B identifiers, returns nothing of B', async () => {
      const A = a.id;
      const all = { channels: ['Facebook', 'Instagram'], value_props: ['Cash Back', 'Unlimited Data'], limit: 200 };
      const cases: Record<ReadFunctionName, () => Promise<unknown>> = {
        default_tenant: () => port.call('default_tenant', {}, rows.tenantRow),
        tenant_data_families: () => port.call('tenant_data_families', { tenant_id: A }, rows.tenantDataFamilyRow),
        channel_settings_for: () =>
          port.call('channel_settings_for', { tenant_id: A, channel_ids: ['C-B'] }, rows.channelSettingsRow),
        resolve_tenant: () =>
          port.call('resolve_tenant', { platform: 'slack', workspace_id: 'T-A-unmapped' }, rows.tenantRow),
        search_campaigns: () =>
          port
            .call(
              'search_campaigns',
              { tenant_id: A, query_embedding: hashEmbedding(`${MARK} wind power`, TEST_DIMENSIONS), ...all },
              rows.semanticCampaignRow,
            )
            .catch((e: unknown) => {
              if (!vectors && e instanceof DataError && e.code === 'unavailable') return [];
              throw e;
            }),
        search_campaigns_by_copy: () =>
          port
            .call(
              'search_campaigns_by_copy',
              { tenant_id: A, query_embedding: hashEmbedding(`${MARK} wind power`, TEST_DIMENSIONS), ...all },
              rows.semanticCampaignRow,
            )
            .catch((e: unknown) => {
              if (!vectors && e instanceof DataError && e.code === 'unavailable') return [];
              throw e;
            }),
        search_campaigns_by_text: async () => [
          ...(await port.call('search_campaigns_by_text', { tenant_id: A, query: MARK }, rows.textCampaignRow)),
          ...(await port.call(
            'search_campaigns_by_text',
            { tenant_id: A, query: 'wind power', ...all },
            rows.textCampaignRow,
          )),
        ],
        filter_campaigns: () =>
          port.call('filter_campaigns', { tenant_id: A, date_from: '2026-10-30', ...all }, rows.campaignRow),
        aggregate_campaigns: async () => [
          ...(await port.call(
            'aggregate_campaigns',
            { tenant_id: A, group_by: 'company', limit: 50 },
            rows.aggregationRow,
          )),
          ...(await port.call(
            'aggregate_campaigns',
            { tenant_id: A, group_by: 'brand', companies: [`B Energy ${MARK}`], ...all },
            rows.aggregationRow,
          )),
        ],
        list_campaign_facets: () => port.call('list_campaign_facets', { tenant_id: A }, rows.campaignFacetRow),
        get_campaigns: () => port.call('get_campaigns', { tenant_id: A, ids: b.campaignIds }, rows.campaignRow),
        embedding_status: async () => {
          const status = await port.call('embedding_status', { tenant_id: A }, rows.embeddingStatusRow);
          expect(status[0]?.campaigns).toBe(300);
          return status;
        },
        list_competitor_ids: async () => [
          ...(await port.call(
            'list_competitor_ids',
            { tenant_id: A, campaign_id: b.campaignIds[0] ?? null },
            rows.competitorIdRow,
          )),
          ...(await port.call('list_competitor_ids', { tenant_id: A }, rows.competitorIdRow)),
        ],
        get_competitor: async () => {
          expect(await port.call('get_competitor', { tenant_id: A, key: 'only-b' }, rows.competitorRow)).toEqual([]);
          return port.call('get_competitor', { tenant_id: A, key: 'norlys' }, rows.competitorRow);
        },
        search_products: () =>
          port.call('search_products', { tenant_id: A, query: 'plate', thickness_mm: 10 }, rows.productRow),
        get_pricing_for_material: () =>
          port.call(
            'get_pricing_for_material',
            { tenant_id: A, family: 'stainless', grade: '304', thickness_mm: 10, form: 'plate' },
            rows.materialPriceRow,
          ),
        compare_suppliers: async () => {
          expect(
            await port.call('compare_suppliers', { tenant_id: A, product_id: b.productId }, rows.supplierComparisonRow),
          ).toEqual([]);
          return port.call(
            'compare_suppliers',
            { tenant_id: A, family: 'stainless', form: 'plate', thickness_mm: 10 },
            rows.supplierComparisonRow,
          );
        },
        get_business: async () => {
          expect(
            await port.call('get_business', { tenant_id: A, business_id: b.businessId }, rows.businessRow),
          ).toEqual([]);
          return port.call('get_business', { tenant_id: A }, rows.businessRow);
        },
        get_business_services: () =>
          port.call('get_business_services', { tenant_id: A, business_id: b.businessId }, rows.serviceRow),
        get_working_hours: () =>
          port.call('get_working_hours', { tenant_id: A, business_id: b.businessId }, rows.workingHoursRow),
        get_latest_booking: async () => [
          ...(await port.call(
            'get_latest_booking',
            { tenant_id: A, customer_phone: '+61 499 000 111' },
            rows.bookingRow,
          )),
          ...(await port.call(
            'get_latest_booking',
            { tenant_id: A, customer_phone: '+61 412 345 678', limit: 20 },
            rows.bookingRow,
          )),
          ...(await port.call(
            'get_latest_booking',
            { tenant_id: A, customer_phone: '+61 412 345 678', business_id: b.businessId },
            rows.bookingRow,
          )),
        ],
        get_booking_by_id: async () => [
          ...(await port.call('get_booking_by_id', { tenant_id: A, booking_id: 'B-1' }, rows.bookingRow)),
          ...(await port.call(
            'get_booking_by_id',
            { tenant_id: A, booking_id: secrets.at(-1) ?? '' },
            rows.bookingRow,
          )),
        ],
        // B's reference and B's customer's phone and email: still nothing of B for A.
        get_booking_for_guest: async () => [
          ...(await port.call(
            'get_booking_for_guest',
            { tenant_id: A, booking_id: 'B-1', customer_phone: '+61 499 000 111' },
            rows.bookingRow,
          )),
          ...(await port.call(
            'get_booking_for_guest',
            { tenant_id: A, booking_id: 'B-2', customer_phone: '+61 412 345 678' },
            rows.bookingRow,
          )),
          ...(await port.call(
            'get_booking_for_guest',
            { tenant_id: A, booking_id: secrets.at(-1) ?? '', customer_phone: '0499 000 111' },
            rows.bookingRow,
          )),
        ],
        get_policies: async () => [
          ...(await port.call('get_policies', { tenant_id: A, topic: 'cancellation' }, rows.policyRow)),
          ...(await port.call('get_policies', { tenant_id: A, business_id: b.businessId }, rows.policyRow)),
        ],
        get_faqs: async () => [
          ...(await port.call('get_faqs', { tenant_id: A, topic: 'parking', limit: 50 }, rows.faqRow)),
          ...(await port.call('get_faqs', { tenant_id: A, topic: MARK, business_id: b.businessId }, rows.faqRow)),
        ],
        get_availability: async () => {
          const slots = await port.call(
            'get_availability',
            { tenant_id: A, date: '2027-06-01', business_id: b.businessId },
            rows.availabilityRow,
          );
          expect(slots).toEqual([]);
          return slots;
        },
        // Memory: A's turn with B's platform ids sees, lists and forgets nothing of B's notes.
        memory_recall: () =>
          port.call(
            'memory_recall',
            {
              tenant_id: A,
              platform: 'slack',
              user_id: 'U-SAME',
              channel_id: 'C-SAME',
              direct: true,
              member: true,
              query: `${MARK} fiscal`,
              ...(vectors ? { query_embedding: hashEmbedding(`B ${MARK}`, TEST_DIMENSIONS) } : {}),
            },
            rows.memoryRecallRow,
          ),
        memory_list: () =>
          port.call(
            'memory_list',
            { tenant_id: A, platform: 'slack', user_id: 'U-SAME', channel_id: 'C-SAME', member: true },
            rows.memoryListRow,
          ),
        memory_forget: async () => {
          const out = [];
          for (const id of b.memoryIds) {
            const [r] = await port.call(
              'memory_forget',
              { tenant_id: A, id, platform: 'slack', user_id: 'U-SAME', member: true, channel_id: 'C-SAME' },
              rows.memoryForgetRow,
            );
            expect(r?.status).toBe('not_found');
            out.push({ ...r, id: 'checked' });
          }
          return out;
        },
        memory_set_embedding: async () => {
          if (!vectors) return [];
          const [r] = await port.call(
            'memory_set_embedding',
            { tenant_id: A, id: b.memoryIds[0] ?? '', embedding: hashEmbedding('x', TEST_DIMENSIONS) },
            rows.memoryEmbeddingRow,
          );
          expect(r?.updated).toBe(0);
          return [];
        },
        // A's note lands in A (B's limits and rows are not A's).
        memory_add: async () => {
          const [r] = await port.call(
            'memory_add',
            {
              tenant_id: A,
              platform: 'slack',
              user_id: 'U-SAME',
              member: true,
              max_per_user: 10,
              max_per_tenant: 10,
              ttl_days: 1,
              scope: 'team',
              text: 'A note',
            },
            rows.memoryAddedRow,
          );
          expect(r?.status).toBe('saved');
          return [r];
        },
        // A write into B's business as A is refused, never stored under B.
        take_message: () =>
          port
            .call(
              'take_message',
              {
                tenant_id: A,
                name: 'x',
                contact: 'x@example.com',
                message: 'm',
                platform: 'http',
                user_id: 'u',
                business_id: b.businessId,
              },
              rows.takenMessageRow,
            )
            .then(() => {
              throw new Error('take_message wrote into another tenant’s business');
            })
            .catch((e: unknown) => {
              expect(e).toBeInstanceOf(DataError);
              return [];
            }),
      };
      for (const [fn, run] of Object.entries(cases)) expectNothingOfB(await run(), fn);
    });

    it('workspace mappings resolve to their own tenant only', async () => {
      expect((await port.resolveTenant('slack', 'T-B'))?.id).toBe(bId);
      expect(await port.resolveTenant('discord', 'T-B')).toBeNull();
    });

    it('admin functions, called as A, never touch B', async () => {
      expectNothingOfB(
        await port.admin('campaigns_missing_embeddings', { tenant_id: a.id, limit: 1000 }, rows.missingEmbeddingRow),
        'campaigns_missing_embeddings',
      );
      if (vectors) {
        const items = b.campaignIds.map((id) => ({ id, embedding: hashEmbedding('overwrite', TEST_DIMENSIONS) }));
        expect(
          await port.admin('set_campaign_embeddings', { tenant_id: a.id, items }, z.object({ updated: z.number() })),
        ).toEqual([{ updated: 0 }]);
      }
      // B stages an import; A can neither commit nor discard it.
      const importId = randomUUID();
      await port.admin(
        'import_stage',
        {
          tenant_id: bId,
          import_id: importId,
          table: 'faqs',
          seq: 0,
          rows: [{ _line: 1, topic: 'x', question: 'q?', answer: 'a' }],
        },
        z.object({ staged: z.number() }),
      );
      const commit = await port
        .admin('import_commit', { tenant_id: a.id, import_id: importId }, rows.importCommitRow)
        .catch((e: unknown) => e);
      expect((commit as DataError).code).toBe('invalid_input');
      expect(
        await port.admin('import_abort', { tenant_id: a.id, import_id: importId }, z.object({ discarded: z.number() })),
      ).toEqual([{ discarded: 0 }]);
      expect(
        await port.admin('import_abort', { tenant_id: bId, import_id: importId }, z.object({ discarded: z.number() })),
      ).toEqual([{ discarded: 1 }]);
    });
  });
}
