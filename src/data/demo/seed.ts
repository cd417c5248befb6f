import type { Logger } from '../../telemetry/logger.js';
import { importRows } from '../import/run.js';
import type { ImportTable } from '../import/tables.js';
import type { AdminDataPort } from '../rpc-port.js';
import { tenantListRow, tenantToolsListRow } from '../rows.js';
import type { ToolFamily } from '../../contract/toolsets.js';
import { DEMO_BUSINESS_SLUG, demoBookings, demoBusiness, demoFaqs, demoPolicies } from './business.js';
import { DEMO_DEFAULT_CAMPAIGN_KEY, demoCampaigns } from './campaigns.js';
import { demoCompetitors } from './competitors.js';
import { demoProducts } from './products.js';
import { todayUtc } from './prng.js';

/** The demo's clinic tenant: the physiotherapy clinic's business, bookings, policies and FAQs. */
export const DEMO_CLINIC_TENANT = 'harbourside';

export interface SeedOptions {
  /** The marketing tenant to fill; default: the default tenant. */
  tenantId?: string;
  /** Campaign capture dates and bookings are placed relative to this date (default: today, UTC). */
  anchor?: Date;
  log?: Logger;
}

export interface SeedResult {
  /** The marketing tenant (the default one unless `tenantId` named another). */
  tenantId: string;
  /** The clinic tenant (`harbourside`). */
  clinicTenantId: string;
  rows: Record<string, number>;
}

/**
 * Fills two demo tenants through the importer (same validation, same SQL as `npm run import`),
 * so re-seeding is idempotent and the demo rows are valid imports:
 * - the default tenant, a marketing team: campaigns, competitors, a sheet-metal catalogue
 *   (tools: campaigns, competitors, quotes, web, artifacts, memory);
 * - `harbourside`, a physiotherapy clinic: its business, bookings, policies and FAQs (tools:
 *   business), reached from the console with `npm run chat -- --tenant harbourside` (its
 *   `console`/`http` workspace is `harbourside`) or from a Slack team or Discord server mapped
 *   to it with `npm run tenants -- approve slack <team id> --tenant harbourside`.
 * A `tools` setting already on a tenant (`npm run tenants -- tools …`) is kept.
 */
export async function seedDemo(port: AdminDataPort, opts: SeedOptions = {}): Promise<SeedResult> {
  const anchor = opts.anchor ?? todayUtc();
  const listed = async () => port.admin('list_tenants', {}, tenantListRow);
  let tenants = await listed();
  const tenant = opts.tenantId ? tenants.find((t) => t.id === opts.tenantId) : tenants.find((t) => t.is_default);
  if (!tenant) throw new Error(opts.tenantId ? `unknown tenant ${opts.tenantId}` : 'no default tenant');
  const demoSettings = { demo: true, demo_anchor: anchor.toISOString().slice(0, 10) };
  const kept = new Map((await port.admin('list_tenant_tools', {}, tenantToolsListRow)).map((t) => [t.slug, t.tools]));
  const settings = (slug: string, tools: ToolFamily[]) => ({ ...demoSettings, tools: kept.get(slug) ?? tools });
  const rows: Record<string, number> = {};
  const load = async (tenantId: string, tables: [ImportTable, readonly object[]][]) => {
    for (const [table, data] of tables) {
      const res = await importRows(port, table, tenantId, data);
      rows[table] = (rows[table] ?? 0) + res.total;
    }
  };

  // The clinic's tenant row first (created by slug), so its business rows have a tenant to go to.
  const clinicRow = {
    slug: DEMO_CLINIC_TENANT,
    name: demoBusiness.name,
    settings: settings(DEMO_CLINIC_TENANT, ['business']),
  };
  if (!tenants.some((t) => t.slug === DEMO_CLINIC_TENANT)) {
    await importRows(port, 'tenants', tenant.id, [clinicRow]);
    tenants = await listed();
  }
  const clinic = tenants.find((t) => t.slug === DEMO_CLINIC_TENANT);
  if (!clinic) throw new Error(`the demo tenant ${DEMO_CLINIC_TENANT} could not be created`);

  const { products, prices } = demoProducts();
  await load(tenant.id, [
    ['campaigns', demoCampaigns(anchor)],
    ['competitors', demoCompetitors()],
    ['products', products],
    ['supplier_prices', prices],
    [
      'tenants',
      [
        {
          slug: tenant.slug,
          name: tenant.is_default ? 'Demo marketing team' : tenant.name,
          settings: settings(tenant.slug, ['artifacts', 'campaigns', 'competitors', 'memory', 'quotes', 'web']),
          default_campaign_key: DEMO_DEFAULT_CAMPAIGN_KEY,
        },
      ],
    ],
  ]);
  await load(clinic.id, [
    ['businesses', [demoBusiness]],
    ['policies', demoPolicies.map((p) => ({ ...p, business_slug: DEMO_BUSINESS_SLUG }))],
    ['faqs', demoFaqs.map((f) => ({ ...f, business_slug: DEMO_BUSINESS_SLUG }))],
    ['bookings', demoBookings(anchor)],
    ['tenants', [{ ...clinicRow, business_slug: DEMO_BUSINESS_SLUG }]],
    [
      'tenant_workspaces',
      [
        { platform: 'console', workspace_id: DEMO_CLINIC_TENANT },
        { platform: 'http', workspace_id: DEMO_CLINIC_TENANT },
      ],
    ],
  ]);
  opts.log?.info(
    { tenants: [tenant.slug, DEMO_CLINIC_TENANT], rows, anchor: anchor.toISOString().slice(0, 10) },
    'demo data seeded',
  );
  return { tenantId: tenant.id, clinicTenantId: clinic.id, rows };
}
