import type { Hono } from 'hono';
import { z } from 'zod';
import type { DataPort } from '../../contract/data.js';
import type { Logger } from '../../telemetry/logger.js';
import { enableDefaultMetrics, registry } from '../../telemetry/metrics.js';
import type { KvStore } from '../../state/kv.js';
import type { Inbox } from '../../inbox/index.js';
import type { PlatformAdapter } from '../platform.js';
import { createRefusal, decideAccess } from './access.js';

export interface OpsDeps {
  data: DataPort;
  kv: KvStore;
  inbox: Inbox;
  adapters: PlatformAdapter[];
  log: Logger;
  /** How long one readiness check may take before it counts as down. */
  checkTimeoutMs?: number;
  /** True once the process is stopping: /readyz answers 503 so a balancer stops sending work. */
  draining?: () => boolean;
  /** METRICS_TOKEN: `/metrics` needs its bearer from everyone; unset, loopback clients only. */
  metricsToken?: string;
  /** TRUST_PROXY as a number of proxies (0: X-Forwarded-For is ignored). */
  trustProxy?: number;
  /** REDIS_REQUIRE_PERSISTENCE: not ready while Redis may lose acked events (see watchRedisPersistence). */
  requireRedisPersistence?: boolean;
}

const anyRow = z.unknown();

/** What Redis may lose (CONFIG values only: safe to show on /readyz). */
class UnsafeRedis extends Error {}

/**
 * `GET /metrics` (Prometheus text format) and `GET /readyz`: 200 only when the database, Redis
 * (when configured), the inbox and every configured platform connection answer; 503 with the
 * failing checks otherwise. `/healthz` stays the cheap liveness check (the process answers).
 * `/readyz` is open (probes carry no token); `/metrics` is not (access.ts).
 */
export function mountOps(app: Hono, deps: OpsDeps): void {
  enableDefaultMetrics();
  const refuse = createRefusal(deps.log);

  app.get('/metrics', async (c) => {
    const decision = decideAccess(c, {
      token: deps.metricsToken,
      tokenName: 'METRICS_TOKEN',
      loopbackWithoutToken: true,
      trustedHops: deps.trustProxy ?? 0,
    });
    if (!decision.ok) return refuse(c, decision);
    await deps.inbox.stats().catch((err: unknown) => deps.log.warn({ err }, 'inbox stats unavailable for /metrics'));
    return c.body(await registry.metrics(), 200, { 'content-type': registry.contentType });
  });

  app.get('/readyz', async (c) => {
    if (deps.draining?.()) return c.json({ ok: false, checks: { shutdown: 'draining' } }, 503);
    const { ok, checks } = await checkReadiness(deps);
    return c.json({ ok, checks }, ok ? 200 : 503);
  });
}

/**
 * The readiness checks (/readyz, and the operator console's Health page): each dependency's
 * answer within `checkTimeoutMs`, as `ok`, `timed out`, `not connected` or `unreachable`; with
 * `requireRedisPersistence`, `redis_persistence` says what Redis may lose (see watchRedisPersistence).
 */
export async function checkReadiness(
  deps: Pick<OpsDeps, 'data' | 'kv' | 'inbox' | 'adapters' | 'log' | 'checkTimeoutMs' | 'requireRedisPersistence'>,
): Promise<{ ok: boolean; checks: Record<string, string> }> {
  const timeoutMs = deps.checkTimeoutMs ?? 2_000;
  const checks: Record<string, () => Promise<unknown>> = {
    // A real round trip (default_tenant is not cached like the tenant lookups).
    database: () => deps.data.call('default_tenant', {}, anyRow),
    inbox: () => deps.inbox.stats(),
  };
  const redis = deps.kv.redis;
  if (redis) checks.redis = () => redis.ping();
  if (redis && deps.requireRedisPersistence)
    // The last check (at start and on every reconnect; an unsafe one is read again).
    checks.redis_persistence = async () => {
      // Imported here: it brings the Redis client library, which a start without REDIS_URL never loads.
      const { redisPersistence } = await import('../../net/redis-connection.js');
      const found = await redisPersistence(redis);
      if (found?.state === 'unsafe') throw new UnsafeRedis(found.problem);
    };
  for (const adapter of deps.adapters) {
    if (adapter.ready)
      checks[adapter.name] = async () => ((await adapter.ready!()) ? true : Promise.reject(new Error('not connected')));
  }
  const results = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), timeoutMs)),
      );
      try {
        await Promise.race([check(), timeout]);
        return [name, 'ok'] as const;
      } catch (err) {
        // A fixed reason: error messages can carry connection strings.
        const reason =
          err instanceof UnsafeRedis
            ? `${err.message} (REDIS_REQUIRE_PERSISTENCE=false to accept)`
            : err instanceof Error && (err.message === 'timed out' || err.message === 'not connected')
              ? err.message
              : 'unreachable';
        // An unsafe Redis had its one error line when it was found; a probe every few seconds adds nothing.
        if (!(err instanceof UnsafeRedis)) deps.log.warn({ check: name, err }, `readiness check failed: ${name}`);
        return [name, reason] as const;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return { ok: results.every(([, r]) => r === 'ok'), checks: Object.fromEntries(results) };
}
