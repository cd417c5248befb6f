import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashEmbedder, hashEmbedding } from '../../bench/generate-campaigns.js';
import { DEMO_DEFAULT_CAMPAIGN_KEY } from '../../src/data/demo/campaigns.js';
import { embedMissing } from '../../src/data/embed.js';
import { DataError, type AdminDataPort, type Tenant } from '../../src/data/index.js';
import * as rows from '../../src/data/rows.js';
import { TEST_DIMENSIONS } from '../helpers/db.js';
import { defineIsolationTests } from './isolation.js';

/**
 * The SQL functions, exercised through a DataPort. The same suite runs on every
 * transport (PGlite, Postgres, supabase-js → loopback PostgREST → PGlite/Postgres),
 * which is what "all three run the same SQL" means in practice.
 */
export interface SuiteTarget {
  open(): Promise<{ port: AdminDataPort; close(): Promise<void> }>;
}

export function defineFunctionSuite(label: string, target: SuiteTarget): void {
  describe(label, () => {
    let port: AdminDataPort;
    let close: () => Promise<void>;
    let tenant: Tenant;
    let clinic: Tenant;
    const t = () => tenant.id;
    const c = () => clinic.id;

    beforeAll(async () => {
      ({ port, close } = await target.open());
      tenant = await port.defaultTenant();
      clinic = (await port.resolveTenant('console', 'harbourside'))!;
      if (port.vectorsAvailable) await embedMissing(port, hashEmbedder(TEST_DIMENSIONS), { tenantId: tenant.id });
    });
    afterAll(async () => {
      await close();
    });

    it('serves two demo tenants, the marketing team (default) and the clinic, and maps workspaces', async () => {
      expect(tenant).toMatchObject({ slug: 'default', name: 'Demo marketing team', isDefault: true, businessId: null });
      expect(tenant.defaultCampaignId).toBeTruthy();
      expect(clinic).toMatchObject({ slug: 'harbourside', name: 'Harbourside Physio', isDefault: false });
      expect(clinic.businessId).toBeTruthy();
      expect(await port.resolveTenant('http', 'harbourside')).toMatchObject({ id: clinic.id });
      expect(await port.resolveTenant('slack', 'T-UNMAPPED')).toBeNull();
    });

    describe('toolsets', () => {
      const families = async (id: string) =>
        (await port.call('tenant_data_families', { tenant_id: id }, rows.tenantDataFamilyRow))
          .map((r) => r.family)
          .sort();

      it('each demo tenant has data for its own families only', async () => {
        expect(await families(t())).toEqual(['campaigns', 'competitors', 'quotes']);
        expect(await families(c())).toEqual(['business']);
      });

      it('the seed names each tenant’s families; set_tenant_tools changes or clears them, and refuses unknown ones', async () => {
        const listed = async () =>
          Object.fromEntries(
            (await port.admin('list_tenant_tools', {}, rows.tenantToolsListRow)).map((r) => [r.slug, r.tools]),
          );
        expect(await listed()).toEqual({
          default: ['artifacts', 'campaigns', 'competitors', 'memory', 'quotes', 'web'],
          harbourside: ['business'],
        });
        const [set] = await port.admin(
          'set_tenant_tools',
          { tenant: 'harbourside', tools: ['web', 'business', 'web'] },
          rows.tenantToolsRow,
        );
        expect(set).toEqual({ slug: 'harbourside', tools: ['business', 'web'] });
        expect((await port.resolveTenant('console', 'harbourside'))?.settings).toMatchObject({
          demo: true,
          tools: ['business', 'web'],
        });
        const [auto] = await port.admin(
          'set_tenant_tools',
          { tenant: 'harbourside', tools: null },
          rows.tenantToolsRow,
        );
        expect(auto).toEqual({ slug: 'harbourside', tools: null });
        const settings = (await port.resolveTenant('console', 'harbourside'))?.settings;
        expect(settings).toMatchObject({ demo: true });
        expect(settings).not.toHaveProperty('tools');
        await expect(
          port.admin('set_tenant_tools', { tenant: 'harbourside', tools: ['bookings'] }, rows.tenantToolsRow),
        ).rejects.toMatchObject({ code: 'invalid_input', detail: "unknown tool family 'bookings'" });
        await expect(
          port.admin('set_tenant_tools', { tenant: 'nobody', tools: ['web'] }, rows.tenantToolsRow),
        ).rejects.toMatchObject({ code: 'invalid_input', detail: "unknown tenant 'nobody'" });
        await port.admin('set_tenant_tools', { tenant: 'harbourside', tools: ['business'] }, rows.tenantToolsRow);
      });
    });

    describe('campaigns', () => {
      it('full-text search understands phrases and exclusions, ranked', async () => {
        const hits = await port.call(
          'search_campaigns_by_text',
          { tenant_id: t(), query: '"no annual fee"', limit: 20 },
          rows.textCampaignRow,
        );
        expect(hits.length).toBeGreaterThan(3);
        // "no" is an English stop word: the phrase matches "annual fee(s)" in sequence.
        for (const h of hits)
          expect(`${h.campaign_text} ${h.full_campaign_text}`.toLowerCase()).toMatch(/annual fees?/);
        expect(hits.map((h) => h.rank)).toEqual([...hits.map((h) => h.rank)].sort((a, b) => b - a));
        expect(hits[0]?.snippet).toMatch(/\*\*/);

        const without = await port.call(
          'search_campaigns_by_text',
          { tenant_id: t(), query: '"no annual fee" -cashback', limit: 50 },
          rows.textCampaignRow,
        );
        expect(without.length).toBeGreaterThan(0);
        for (const h of without)
          expect(`${h.campaign_text} ${h.full_campaign_text}`.toLowerCase()).not.toMatch(/cashback/);
      });

      it('a blank or garbage query returns nothing instead of raising', async () => {
        for (const query of ['', '   ', '!!!', '"', 'or', '-', '(((', "'", 'the and of', '&|!:*', '\\']) {
          const hits = await port.call('search_campaigns_by_text', { tenant_id: t(), query }, rows.textCampaignRow);
          expect(hits, JSON.stringify(query)).toEqual([]);
        }
      });

      it('full-text search applies the structured filters too', async () => {
        const hits = await port.call(
          'search_campaigns_by_text',
          { tenant_id: t(), query: 'wind power', channels: ['facebook', 'INSTAGRAM'], has_offer: true, limit: 50 },
          rows.textCampaignRow,
        );
        expect(hits.length).toBeGreaterThan(0);
        for (const h of hits) {
          expect(['Facebook', 'Instagram']).toContain(h.channel);
          expect(h.offer).toBeTruthy();
        }
      });

      it('filters by channel, value prop, sentiment, style, date range and offer, newest first', async () => {
        const all = await port.call('filter_campaigns', { tenant_id: t(), limit: 200 }, rows.campaignRow);
        expect(all).toHaveLength(200);
        expect(all.map((c) => c.capture_date)).toEqual([...all.map((c) => c.capture_date)].sort().reverse());

        const byProp = await port.call(
          'filter_campaigns',
          { tenant_id: t(), value_props: ['cash back', 'Rewards Points'], limit: 200 },
          rows.campaignRow,
        );
        expect(byProp.length).toBeGreaterThan(5);
        for (const c of byProp)
          expect(c.key_value_props.some((p) => p === 'Cash Back' || p === 'Rewards Points')).toBe(true);

        const recent = await port.call(
          'filter_campaigns',
          { tenant_id: t(), date_from: '2026-10-02', date_to: '2026-11-01', limit: 200 },
          rows.campaignRow,
        );
        expect(recent.length).toBeGreaterThan(0);
        for (const c of recent) expect(c.capture_date >= '2026-10-02' && c.capture_date <= '2026-11-01').toBe(true);

        const noOffer = await port.call(
          'filter_campaigns',
          { tenant_id: t(), has_offer: false, limit: 200 },
          rows.campaignRow,
        );
        expect(noOffer.length).toBeGreaterThan(10);
        for (const c of noOffer) expect(c.offer).toBeNull();

        const narrow = await port.call(
          'filter_campaigns',
          {
            tenant_id: t(),
            channels: ['TikTok'],
            sentiments: ['playful', 'Empowering', 'Positive'],
            visual_styles: ['user-generated video', 'Bold Typography'],
            companies: ['tellus mobil', 'Nordvind'],
            limit: 50,
          },
          rows.campaignRow,
        );
        expect(narrow.length).toBeGreaterThan(0); // else the loop below checks nothing
        for (const c of narrow) {
          expect(c.channel).toBe('TikTok');
          expect(['Tellus Mobil', 'Nordvind El']).toContain(c.company);
        }

        const clamped = await port.call('filter_campaigns', { tenant_id: t(), limit: 100_000 }, rows.campaignRow);
        expect(clamped).toHaveLength(200);
      });

      it('lists facet values and fetches campaigns by id', async () => {
        const facets = await port.call('list_campaign_facets', { tenant_id: t() }, rows.campaignFacetRow);
        const companies = facets.filter((f) => f.facet === 'company');
        expect(companies.length).toBeGreaterThanOrEqual(28);
        expect(facets.filter((f) => f.facet === 'channel').map((f) => f.value)).toContain('Instagram');
        expect(companies.reduce((s, f) => s + f.campaigns, 0)).toBe(300);

        const some = await port.call('filter_campaigns', { tenant_id: t(), limit: 3 }, rows.campaignRow);
        const got = await port.call('get_campaigns', { tenant_id: t(), ids: some.map((c) => c.id) }, rows.campaignRow);
        expect(got.map((c) => c.id).sort()).toEqual(some.map((c) => c.id).sort());
        const status = await port.call('embedding_status', { tenant_id: t() }, rows.embeddingStatusRow);
        expect(status).toEqual([{ campaigns: 300, embedded: port.vectorsAvailable ? 300 : 0 }]);
      });

      it('semantic search ranks by similarity and filters (or says pgvector is unavailable)', async () => {
        const embedding = hashEmbedding('Danish wind power green electricity', TEST_DIMENSIONS);
        if (!port.vectorsAvailable) {
          const err = await port
            .call('search_campaigns', { tenant_id: t(), query_embedding: embedding }, rows.semanticCampaignRow)
            .catch((e: unknown) => e);
          expect(err).toBeInstanceOf(DataError);
          expect((err as DataError).code).toBe('unavailable');
          return;
        }
        const hits = await port.call(
          'search_campaigns',
          { tenant_id: t(), query_embedding: embedding, limit: 10 },
          rows.semanticCampaignRow,
        );
        expect(hits).toHaveLength(10);
        expect(hits.map((h) => h.similarity)).toEqual([...hits.map((h) => h.similarity)].sort((a, b) => b - a));
        expect(hits.filter((h) => /wind/i.test(h.full_campaign_text)).length).toBeGreaterThanOrEqual(5);

        const filtered = await port.call(
          'search_campaigns',
          { tenant_id: t(), query_embedding: embedding, channels: ['Email'], has_offer: true, limit: 5 },
          rows.semanticCampaignRow,
        );
        expect(filtered.length).toBeGreaterThan(0);
        for (const h of filtered) expect([h.channel, Boolean(h.offer)]).toEqual(['Email', true]);

        // Fewer matches than asked for: the exact ranking of the filtered window takes over.
        const few = await port.call(
          'filter_campaigns',
          { tenant_id: t(), companies: ['Hedeværk El'], limit: 200 },
          rows.campaignRow,
        );
        expect(few.length).toBeGreaterThan(0);
        expect(few.length).toBeLessThan(30);
        const ranked = await port.call(
          'search_campaigns',
          { tenant_id: t(), query_embedding: embedding, companies: ['hedeværk el'], limit: 30 },
          rows.semanticCampaignRow,
        );
        expect(ranked.map((h) => h.id).sort()).toEqual(few.map((c) => c.id).sort());
        expect(ranked.map((h) => h.similarity)).toEqual([...ranked.map((h) => h.similarity)].sort((a, b) => b - a));

        const wrongSize = await port
          .call('search_campaigns', { tenant_id: t(), query_embedding: [0.1, 0.2, 0.3] }, rows.semanticCampaignRow)
          .catch((e: unknown) => e);
        expect((wrongSize as DataError).code).toBe('invalid_input');
      });
    });

    describe('competitors', () => {
      it('lists ids for the default campaign and fetches one description', async () => {
        const ids = await port.call(
          'list_competitor_ids',
          { tenant_id: t(), campaign_id: tenant.defaultCampaignId ?? null },
          rows.competitorIdRow,
        );
        expect(ids.length).toBeGreaterThanOrEqual(12);
        expect(ids.map((c) => c.key)).toEqual(expect.arrayContaining(['norlys', 'ewii']));
        const [norlys] = await port.call('get_competitor', { tenant_id: t(), key: ' Norlys ' }, rows.competitorRow);
        expect(norlys?.display_name).toBe('Norlys');
        expect(norlys?.full_description.length).toBeGreaterThanOrEqual(1500);
        expect(norlys?.full_description.length).toBeLessThanOrEqual(3000);
        expect(await port.call('get_competitor', { tenant_id: t(), key: 'nobody' }, rows.competitorRow)).toEqual([]);
      });
    });

    describe('products', () => {
      it('searches the catalogue with free text and spec', async () => {
        const found = await port.call(
          'search_products',
          { tenant_id: t(), query: 'stainless 316 sheet 1.5mm' },
          rows.productRow,
        );
        expect(found.length).toBeGreaterThan(0);
        for (const p of found)
          expect([p.family, p.grade, p.form, p.thickness_mm]).toEqual(['stainless', '316', 'sheet', 1.5]);
        const alu = await port.call(
          'search_products',
          { tenant_id: t(), family: 'Aluminum', form: 'plates', thickness_mm: 6 },
          rows.productRow,
        );
        expect(alu.map((p) => p.code)).toEqual(['AL5052-mill-PLATE-6-1200X2400']);
        expect(alu[0]?.supplier_count).toBeGreaterThanOrEqual(1);
      });

      it('prices a material across suppliers and compares landed cost', async () => {
        const prices = await port.call(
          'get_pricing_for_material',
          {
            tenant_id: t(),
            family: 'stainless steel',
            grade: 'SS 304',
            thickness_mm: 1.2,
            form: 'sheet',
            width_mm: 2400,
            length_mm: 1200,
          },
          rows.materialPriceRow,
        );
        expect(new Set(prices.map((p) => p.supplier)).size).toBeGreaterThanOrEqual(2);
        for (const p of prices) expect([p.width_mm, p.length_mm]).toEqual([1200, 2400]);

        const cmp = await port.call(
          'compare_suppliers',
          { tenant_id: t(), family: 'mild steel', grade: '250', form: 'plate', thickness_mm: 10, quantity: 4 },
          rows.supplierComparisonRow,
        );
        expect(cmp.length).toBeGreaterThanOrEqual(2);
        const cheapest = cmp.filter((c) => c.is_cheapest);
        expect(cheapest).toHaveLength(1);
        expect(cheapest[0]?.price_rank).toBe(1);
        for (const c of cmp) expect(c.total_cost).toBeCloseTo(c.price_per_uom * c.quantity + c.delivery_cost, 1);
        expect(await port.call('compare_suppliers', { tenant_id: t() }, rows.supplierComparisonRow)).toEqual([]);
      });
    });

    describe('business', () => {
      it('returns the business, its services and working hours', async () => {
        const [biz] = await port.call('get_business', { tenant_id: c() }, rows.businessRow);
        expect(biz?.name).toBe('Harbourside Physio');
        const services = await port.call('get_business_services', { tenant_id: c() }, rows.serviceRow);
        expect(services.map((s) => s.name)).toContain('Initial consultation');
        const hours = await port.call('get_working_hours', { tenant_id: c() }, rows.workingHoursRow);
        expect(hours.find((h) => h.day === 'sunday')).toMatchObject({ is_closed: true, opens: null });
        expect(hours.filter((h) => h.day === 'wednesday')).toHaveLength(2);
      });

      it('finds bookings by phone (any formatting) and by reference', async () => {
        for (const phone of ['+61 412 345 678', '0412345678', '(04) 1234-5678']) {
          const [latest] = await port.call(
            'get_latest_booking',
            { tenant_id: c(), customer_phone: phone },
            rows.bookingRow,
          );
          expect(latest?.reference, phone).toBe('HP-1100');
        }
        const [byRef] = await port.call(
          'get_booking_by_id',
          { tenant_id: c(), booking_id: ' hp-1100 ' },
          rows.bookingRow,
        );
        expect(byRef).toMatchObject({
          customer_name: 'Sarah Mitchell',
          booking_local: '2026-12-01 10:30',
          status: 'confirmed',
        });
        expect(
          await port.call('get_latest_booking', { tenant_id: c(), customer_phone: '+1 555 0100' }, rows.bookingRow),
        ).toEqual([]);
      });

      it('finds a booking for a guest only with its phone or email too, without email, notes or the full phone', async () => {
        const guest = (args: { customer_phone?: string; customer_email?: string }, booking_id = 'HP-1100') =>
          port.call('get_booking_for_guest', { tenant_id: c(), booking_id, ...args }, rows.bookingRow);
        // Sarah's number is stored as '0412 345 678'.
        for (const phone of ['0412 345 678', '+61 412 345 678', '+61 (0)412-345-678', '0061412345678', '412345678']) {
          const [found] = await guest({ customer_phone: phone });
          expect(found, phone).toMatchObject({
            reference: 'HP-1100',
            customer_name: 'Sarah Mitchell',
            customer_phone: '678',
            customer_email: null,
            customer_notes: null,
          });
        }
        for (const email of ['sarah.mitchell@example.com', '  Sarah.Mitchell@EXAMPLE.com ']) {
          expect((await guest({ customer_email: email }))[0]?.reference, email).toBe('HP-1100');
        }
        // A wrong or partial second fact, or none, finds nothing, as a reference that does not exist does.
        for (const args of [
          { customer_phone: '0412 345 679' },
          { customer_phone: '345 678' },
          { customer_phone: '+1 412 345 678 9' },
          { customer_email: 'sarah@example.com' },
          { customer_email: '' },
          {},
        ]) {
          expect(await guest(args), JSON.stringify(args)).toEqual([]);
        }
        expect(await guest({ customer_phone: '0412 345 678' }, 'HP-9999')).toEqual([]);
        // James's booking (stored as '+61 423 118 904'): found with his number written locally, not with Sarah's.
        const [james] = await port.call(
          'get_latest_booking',
          { tenant_id: c(), customer_phone: '+61 423 118 904' },
          rows.bookingRow,
        );
        expect(james?.customer_name).toBe('James Nguyen');
        expect((await guest({ customer_phone: '0423 118 904' }, james?.reference))[0]?.customer_phone).toBe('904');
        expect(await guest({ customer_phone: '0412 345 678' }, james?.reference)).toEqual([]);
      });

      it('answers policies and FAQs by topic', async () => {
        for (const topic of ['cancellation', 'reschedule', 'late arrival', 'Late-Arrival', 'deposits', 'refunds']) {
          const found = await port.call('get_policies', { tenant_id: c(), topic }, rows.policyRow);
          expect(found.length, topic).toBeGreaterThan(0);
        }
        expect(await port.call('get_policies', { tenant_id: c() }, rows.policyRow)).toHaveLength(6);
        for (const topic of ['parking', 'location', 'pricing']) {
          const faqs = await port.call('get_faqs', { tenant_id: c(), topic }, rows.faqRow);
          expect(faqs.length, topic).toBeGreaterThan(0);
          expect(faqs[0]?.topic).toBe(topic);
        }
        const fund = await port.call('get_faqs', { tenant_id: c(), topic: 'health fund' }, rows.faqRow);
        expect(fund.map((f) => f.question)).toContain('Can I claim on my health fund?');
      });
    });

    it('the default campaign exists and is the demo one', async () => {
      const [c] = await port.call(
        'get_campaigns',
        { tenant_id: t(), ids: [tenant.defaultCampaignId ?? ''] },
        rows.campaignRow,
      );
      expect(c?.brand).toBe('Fjordlys Grøn');
      expect(DEMO_DEFAULT_CAMPAIGN_KEY).toBe('demo-0001');
    });

    defineIsolationTests(() => port);
  });
}
