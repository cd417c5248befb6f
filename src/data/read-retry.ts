import { setTimeout as sleep } from 'node:timers/promises';
import { isConnectionError } from '../contract/infra-errors.js';
import type { Logger } from '../telemetry/logger.js';

/**
 * The waits between the tries of a read that could not reach the database: three tries within
 * about half a second. A read asks the same again, so a retry is safe; a restart's "starting up"
 * or a dropped pooled connection passes within them, a longer outage does not (the inbox then
 * runs the turn again later).
 */
export const READ_RETRY_DELAYS_MS = [100, 400] as const;

/** Runs `read`, again after each delay while it fails on a connection error; other errors at once. */
export async function retryRead<T>(
  read: () => Promise<T>,
  delaysMs: readonly number[] = READ_RETRY_DELAYS_MS,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (err) {
      const delay = delaysMs[attempt];
      if (delay === undefined || !isConnectionError(err)) throw err;
      await sleep(delay);
    }
  }
}

export interface DatabaseOutageLog {
  /** A call failed because the database could not be reached; true when this began an outage. */
  unreachable(fields: Record<string, unknown>): boolean;
  /** A call answered: the outage, if one was told, is over. */
  reachable(): void;
}

/** One warn line when the database stops answering, debug for every failed call after it, one info line when it is back. */
export function createDatabaseOutageLog(log: Logger): DatabaseOutageLog {
  let since: number | undefined;
  let failed = 0;
  return {
    unreachable(fields) {
      failed++;
      if (since !== undefined) {
        log.debug(fields, 'data call failed: the database is unreachable');
        return false;
      }
      since = Date.now();
      log.warn(
        fields,
        'the database is unreachable: reads are retried, known tenants served from cache, turns wait (told once per outage)',
      );
      return true;
    },
    reachable() {
      if (since === undefined) return;
      log.info({ outageMs: Date.now() - since, failedCalls: failed }, 'the database answers again');
      since = undefined;
      failed = 0;
    },
  };
}
