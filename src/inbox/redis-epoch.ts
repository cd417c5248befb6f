import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../telemetry/logger.js';
import { metrics } from '../telemetry/metrics.js';

/**
 * A Redis that restarts without persistence (or is flushed) comes back empty, and the inbox's
 * waiting entries are gone without a trace. The epoch key, written once by the first replica to
 * start, tells: each replica remembers the value it saw, and on every reconnect a missing or
 * different value means Redis lost its data. Events acked before the connection dropped that were
 * still waiting may be lost; the line says from when, and `switchboard_redis_data_lost_total` counts it.
 */
export async function watchRedisEpoch(
  client: Redis,
  key: string,
  log: Pick<Logger, 'error'>,
  fields: { redis: string },
): Promise<void> {
  let seen: string | undefined;
  // When this replica last knew Redis had its data: the moment the connection dropped.
  let lastSeenAt = Date.now();
  let live = false;
  const claim = async () => {
    await client.set(key, `${new Date().toISOString()} ${randomUUID()}`, 'NX');
    seen = (await client.get(key)) ?? undefined;
    live = true;
  };
  const check = async () => {
    const now = await client.get(key);
    if (seen !== undefined && now !== seen) {
      metrics.redisDataLost.inc();
      const at = new Date(lastSeenAt).toISOString().slice(11, 19);
      log.error(
        { ...fields, epochKey: key, lastSeenAt: new Date(lastSeenAt).toISOString() },
        `Redis lost its data: events acked before ${at} UTC that were still waiting may be lost`,
      );
    }
    await claim();
  };
  client.on('close', () => {
    // Failed reconnect attempts close too; only the drop of a live connection counts.
    if (live) lastSeenAt = Date.now();
    live = false;
  });
  client.on('ready', () => void check().catch(() => undefined));
  if (client.status === 'ready') await claim().catch(() => undefined);
}
