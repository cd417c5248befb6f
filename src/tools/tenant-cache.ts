/**
 * A per-tenant value with a TTL, loaded once however many steps ask at the same time.
 * keyv would give the TTL but not the shared in-flight load, which is the point here: the
 * registry asks `offer` and `inputFor` on every step, often concurrently across threads.
 */
export interface TenantCache<T> {
  get(tenantId: string, load: () => Promise<T>): Promise<T>;
  /** Drops a tenant's value, so the next `get` loads it again. */
  invalidate(tenantId: string): void;
}

export function createTenantCache<T>(ttlMs: number, now: () => number = Date.now): TenantCache<T> {
  const entries = new Map<string, { value: Promise<T>; expiresAt: number }>();

  const sweep = (t: number) => {
    for (const [id, entry] of entries) if (entry.expiresAt <= t) entries.delete(id);
  };

  return {
    get(tenantId, load) {
      const t = now();
      const hit = entries.get(tenantId);
      if (hit && hit.expiresAt > t) return hit.value;
      // Loads are rare (once per tenant per TTL), so sweeping here keeps the map bounded cheaply.
      sweep(t);
      const value = load();
      entries.set(tenantId, { value, expiresAt: t + ttlMs });
      // A failed load is not remembered: the next step tries again.
      value.catch(() => {
        if (entries.get(tenantId)?.value === value) entries.delete(tenantId);
      });
      return value;
    },
    invalidate(tenantId) {
      entries.delete(tenantId);
    },
  };
}
