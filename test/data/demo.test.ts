import { describe, expect, it } from 'vitest';
import { demoBookings, demoBusiness, demoFaqs, demoPolicies } from '../../src/data/demo/business.js';
import { COMPANIES } from '../../src/data/demo/campaign-vocab.js';
import { demoCampaigns } from '../../src/data/demo/campaigns.js';
import { demoCompetitors } from '../../src/data/demo/competitors.js';
import { demoProducts, SUPPLIERS } from '../../src/data/demo/products.js';
import { DEMO_ANCHOR } from '../../src/data/demo/prng.js';
import { checkRow } from '../../src/data/import/tables.js';

describe('demo data', () => {
  const campaigns = demoCampaigns(DEMO_ANCHOR);

  it('is deterministic', () => {
    expect(demoCampaigns(DEMO_ANCHOR)).toEqual(campaigns);
    expect(demoProducts()).toEqual(demoProducts());
    expect(demoBookings(DEMO_ANCHOR)).toEqual(demoBookings(DEMO_ANCHOR));
  });

  it('has about 300 campaigns from about 30 companies in four industries, spread over two years', () => {
    expect(campaigns).toHaveLength(300);
    const companies = new Set(campaigns.map((c) => c.company));
    expect(companies.size).toBeGreaterThanOrEqual(28);
    expect(new Set(COMPANIES.map((c) => c.industry))).toEqual(new Set(['cards', 'energy', 'telecom', 'travel']));
    const dates = campaigns.map((c) => c.capture_date).sort();
    expect(dates[0]! >= '2024-11-01').toBe(true);
    expect(dates.at(-1)! <= '2026-11-01').toBe(true);
    expect(dates.filter((d) => d >= '2026-10-02').length).toBeGreaterThanOrEqual(5); // "last 30 days"
    expect(dates.filter((d) => d < '2025-11-01').length).toBeGreaterThan(100);
    const withOffer = campaigns.filter((c) => c.offer).length;
    expect(withOffer).toBeGreaterThan(150);
    expect(withOffer).toBeLessThan(280);
    expect(new Set(campaigns.map((c) => c.channel)).size).toBeGreaterThanOrEqual(8);
    expect(new Set(campaigns.map((c) => c.imagery_sentiment)).size).toBeGreaterThanOrEqual(8);
    expect(new Set(campaigns.map((c) => c.imagery_visual_style)).size).toBeGreaterThanOrEqual(8);
    expect(new Set(campaigns.map((c) => c.full_campaign_text)).size).toBe(300);
  });

  it('has at least 12 competitors with 1,500–3,000 character descriptions', () => {
    const competitors = demoCompetitors();
    expect(competitors.length).toBeGreaterThanOrEqual(12);
    for (const c of competitors) {
      expect(c.full_description.length, c.key).toBeGreaterThanOrEqual(1500);
      expect(c.full_description.length, c.key).toBeLessThanOrEqual(3000);
    }
  });

  it('has a sheet-metal catalogue from 3+ suppliers across grades and forms', () => {
    const { products, prices } = demoProducts();
    expect(new Set(prices.map((p) => p.supplier)).size).toBeGreaterThanOrEqual(3);
    expect(SUPPLIERS.length).toBeGreaterThanOrEqual(3);
    const grades = new Set(products.map((p) => `${p.family}:${p.grade}`));
    for (const g of ['stainless:304', 'stainless:316', 'aluminium:5052']) expect(grades).toContain(g);
    expect(products.some((p) => p.family === 'mild_steel')).toBe(true);
    expect(new Set(products.map((p) => p.form))).toEqual(new Set(['sheet', 'plate', 'tube', 'angle', 'bar']));
    for (const p of prices) expect(p.price_per_uom).toBeGreaterThan(0);
    // Every product has at least one price.
    const priced = new Set(prices.map((p) => p.product_code));
    expect(products.filter((p) => !priced.has(p.code))).toEqual([]);
  });

  it('has one business with services, hours, the policies and FAQs the receptionist needs, and bookings', () => {
    expect(demoBusiness.services.length).toBeGreaterThanOrEqual(5);
    expect(Object.keys(demoBusiness.working_hours)).toHaveLength(7);
    expect(demoPolicies.map((p) => p.topic)).toEqual(
      expect.arrayContaining(['cancellation', 'reschedule', 'late_arrival', 'deposits', 'refunds']),
    );
    expect(demoFaqs.map((f) => f.topic)).toEqual(expect.arrayContaining(['parking', 'location', 'pricing']));
    const bookings = demoBookings(DEMO_ANCHOR);
    expect(bookings.length).toBeGreaterThanOrEqual(30);
    expect(new Set(bookings.map((b) => b.status)).size).toBeGreaterThanOrEqual(4);
  });

  it('is valid import data', () => {
    const { products, prices } = demoProducts();
    const sets: [Parameters<typeof checkRow>[0], object[]][] = [
      ['campaigns', campaigns],
      ['competitors', demoCompetitors()],
      ['products', products],
      ['supplier_prices', prices],
      ['businesses', [demoBusiness]],
      ['policies', demoPolicies],
      ['faqs', demoFaqs],
      ['bookings', demoBookings(DEMO_ANCHOR)],
    ];
    for (const [table, data] of sets) {
      for (const row of data) expect(checkRow(table, { ...row }), table).toMatchObject({ ok: true });
    }
  });
});
