import { setTimeout as sleep } from 'node:timers/promises';
import { isConnectionError } from '../contract/infra-errors.js';

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
