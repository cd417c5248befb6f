import { competitorIdRow } from '../../data/rows.js';
import type { OfferContext } from '../../contract/tool.js';
import { createTenantCache } from '../tenant-cache.js';

/** What the tool needs to know about a competitor before fetching it: no description. */
export interface CompetitorEntry {
  key: string;
  name: string;
}

/** The ids and names of each tenant's competitors, cached per tenant with a TTL. */
export interface CompetitorDirectory {
  /** The tenant's competitors, ordered by id; loads them on first use and after the TTL. */
  list(ctx: Pick<OfferContext, 'tenant' | 'data' | 'log'>): Promise<CompetitorEntry[]>;
  /** Forgets a tenant's list (a competitor turned out to be gone). */
  forget(tenantId: string): void;
}

export function createCompetitorDirectory(ttlMs: number, now?: () => number): CompetitorDirectory {
  const cache = createTenantCache<CompetitorEntry[]>(ttlMs, now);
  return {
    list: (ctx) => cache.get(ctx.tenant.id, () => loadCompetitorIds(ctx)),
    forget: (tenantId) => cache.invalidate(tenantId),
  };
}

async function loadCompetitorIds({
  tenant,
  data,
  log,
}: Pick<OfferContext, 'tenant' | 'data' | 'log'>): Promise<CompetitorEntry[]> {
  const started = performance.now();
  // A campaign sees its own competitors plus the tenant-wide ones; no campaign sees them all.
  const rows = await data.call(
    'list_competitor_ids',
    { campaign_id: tenant.defaultCampaignId ?? null },
    competitorIdRow,
  );
  const latencyMs = Math.round(performance.now() - started);
  log.debug(
    { tenant: tenant.slug ?? tenant.id, competitors: rows.length, latencyMs },
    `Fetched ${rows.length} competitor IDs in ${latencyMs}ms`,
  );
  return rows.map((r) => ({ key: r.key, name: r.display_name }));
}
