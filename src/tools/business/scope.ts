import type { Tenant } from '../../contract/data.js';
import { businessRow, serviceRow, workingHoursRow } from '../../data/rows.js';
import type { OfferContext } from '../../contract/tool.js';
import type { BusinessLookups, LookupResult } from './lookup.js';
import type { TenantCache } from '../tenant-cache.js';

/** What every business tool shares: the lookup runner and how long results stay fresh. */
export interface BusinessEnv {
  lookups: BusinessLookups;
  /**
   * Per tenant (and business), for `referenceTtlMs`: whether it has a business, and the system
   * context built from its profile, services and hours. Every new thread would otherwise read
   * the same three rows again (1,000 new threads: 3,000 reads).
   */
  perTenant: {
    hasBusiness: TenantCache<boolean>;
    context: TenantCache<{ text: string | undefined; complete: boolean }>;
  };
  /** Services, hours, policies, FAQs: they change rarely. */
  referenceTtlMs: number;
  /** Bookings change status during the day: a short TTL. */
  bookingTtlMs: number;
  timeoutMs: number;
}

export interface BusinessProfile {
  name: string;
  timezone: string;
}

/**
 * The business of every call: the tenant's configured one (the tenant itself is added by the
 * tenant-bound port). Without `businessId` the SQL picks the tenant's own business.
 */
export function scopeArgs(tenant: Tenant): { business_id: string | null } {
  return { business_id: tenant.businessId ?? null };
}

/** Per-thread cache keys; the thread key already names the tenant. */
export function cacheKey(tenant: Tenant, ...parts: string[]): string {
  return ['business', tenant.businessId ?? 'own', ...parts].join(':');
}

/** The tenant's business (name and time zone), or null when it has none. */
export function loadProfile(
  env: BusinessEnv,
  ctx: OfferContext,
  now: number,
  tool: string,
): Promise<LookupResult<BusinessProfile | null>> {
  return env.lookups.run(ctx, now, {
    tool,
    fn: 'get_business',
    key: cacheKey(ctx.tenant, 'profile'),
    ttlMs: env.referenceTtlMs,
    size: (p) => (p ? 1 : 0),
    async load() {
      const [row] = await ctx.data.call('get_business', scopeArgs(ctx.tenant), businessRow);
      return row ? { name: row.name, timezone: row.timezone } : null;
    },
  });
}

/** The business's services, through the per-thread cache (shared by the tools and the system context). */
export function loadServices(env: BusinessEnv, ctx: OfferContext, now: number, tool: string) {
  return env.lookups.run(ctx, now, {
    tool,
    fn: 'get_business_services',
    key: cacheKey(ctx.tenant, 'services'),
    ttlMs: env.referenceTtlMs,
    size: (r) => r.length,
    load: () => ctx.data.call('get_business_services', scopeArgs(ctx.tenant), serviceRow),
  });
}

/** The business's opening intervals, through the per-thread cache. */
export function loadHours(env: BusinessEnv, ctx: OfferContext, now: number, tool: string) {
  return env.lookups.run(ctx, now, {
    tool,
    fn: 'get_working_hours',
    key: cacheKey(ctx.tenant, 'hours'),
    ttlMs: env.referenceTtlMs,
    size: (r) => r.length,
    load: () => ctx.data.call('get_working_hours', scopeArgs(ctx.tenant), workingHoursRow),
  });
}

/** Business tools are offered only to a tenant that has a business (a failed read is not remembered). */
export async function hasBusiness(env: BusinessEnv, ctx: OfferContext): Promise<boolean> {
  if (ctx.tenant.businessId) return true;
  return env.perTenant.hasBusiness
    .get(tenantKey(ctx.tenant), async () => {
      const profile = await loadProfile(env, ctx, Date.now(), 'offer');
      if (!profile.ok) throw new Error('the business profile could not be read');
      return profile.value !== null;
    })
    .catch(() => false);
}

/** The per-tenant cache key: the tenant and the business it answers for. */
export function tenantKey(tenant: Tenant): string {
  return `${tenant.id}:${tenant.businessId ?? 'own'}`;
}
