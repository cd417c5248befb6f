import type { Logger } from '../../logger.js';
import { importRows } from '../import/run.js';
import type { ImportTable } from '../import/tables.js';
import type { AdminDataPort } from '../rpc-port.js';
import { tenantListRow } from '../rows.js';
import { DEMO_BUSINESS_SLUG, demoBookings, demoBusiness, demoFaqs, demoPolicies } from './business.js';
import { DEMO_DEFAULT_CAMPAIGN_KEY, demoCampaigns } from './campaigns.js';
import { demoCompetitors } from './competitors.js';
import { demoProducts } from './products.js';
import { todayUtc } from './prng.js';

export interface SeedOptions {
  /** The tenant to fill; default: the default tenant. */
  tenantId?: string;
  /** Campaign capture dates and bookings are placed relative to this date (default: today, UTC). */
  anchor?: Date;
  log?: Logger;
}

export interface SeedResult {
  tenantId: string;
  rows: Record<string, number>;
}

/**
 * Fills a tenant with the demo data through the importer (same validation, same SQL as
 * `npm run import`), so re-seeding is idempotent and the demo rows are valid imports.
 */
export async function seedDemo(port: AdminDataPort, opts: SeedOptions = {}): Promise<SeedResult> {
  const anchor = opts.anchor ?? todayUtc();
  const tenants = await port.admin('list_tenants', {}, tenantListRow);
  const tenant = opts.tenantId ? tenants.find((t) => t.id === opts.tenantId) : tenants.find((t) => t.is_default);
  if (!tenant) throw new Error(opts.tenantId ? `unknown tenant ${opts.tenantId}` : 'no default tenant');
  const { products, prices } = demoProducts();
  const tables: [ImportTable, readonly object[]][] = [
    ['campaigns', demoCampaigns(anchor)],
    ['competitors', demoCompetitors()],
    ['products', products],
    ['supplier_prices', prices],
    ['businesses', [demoBusiness]],
    ['policies', demoPolicies.map((p) => ({ ...p, business_slug: DEMO_BUSINESS_SLUG }))],
    ['faqs', demoFaqs.map((f) => ({ ...f, business_slug: DEMO_BUSINESS_SLUG }))],
    ['bookings', demoBookings(anchor)],
    [
      'tenants',
      [
        {
          slug: tenant.slug,
          name: tenant.is_default ? 'Demo workspace' : tenant.name,
          settings: { demo: true, demo_anchor: anchor.toISOString().slice(0, 10) },
          business_slug: DEMO_BUSINESS_SLUG,
          default_campaign_key: DEMO_DEFAULT_CAMPAIGN_KEY,
        },
      ],
    ],
  ];
  const rows: Record<string, number> = {};
  for (const [table, data] of tables) {
    const res = await importRows(port, table, tenant.id, data);
    rows[table] = res.total;
  }
  opts.log?.info({ tenant: tenant.slug, rows, anchor: anchor.toISOString().slice(0, 10) }, 'demo data seeded');
  return { tenantId: tenant.id, rows };
}
