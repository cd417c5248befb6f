import type { Logger } from './logger.js';

/**
 * A dependency's outage told once, not once a call: while it is away, the first failure of each
 * kind (its message) is logged at warn with its error, every repeat at debug; the first success
 * after it logs one info line (how long, how many calls failed) and the next outage is told again.
 * For callers that see both their failures and their successes (the thread lock, the rate limits,
 * Slack's event intake); the turns' own outage line is the inbox's (src/inbox/retry.ts).
 */
export interface OutageNotice {
  /** A call failed because the dependency is away: `msg` at warn the first time this outage, debug after. */
  failed(fields: Record<string, unknown>, msg: string): void;
  /** A call got through: ends the outage, with one info line if there was one. */
  ok(): void;
  /** Whether a failure was seen since the last success. */
  readonly down: boolean;
}

/** `recovered`: the info line's message ("… answers again"). */
export function createOutageNotice(log: Logger, recovered: string): OutageNotice {
  let since: number | undefined;
  let failures = 0;
  const told = new Set<string>();
  return {
    failed(fields, msg) {
      failures++;
      since ??= Date.now();
      if (told.has(msg)) {
        if (log.isLevelEnabled('debug')) log.debug(fields, msg);
        return;
      }
      told.add(msg);
      log.warn({ ...fields, outage: 'told once per outage' }, msg);
    },
    ok() {
      if (since === undefined) return;
      log.info({ outageMs: Date.now() - since, failures }, recovered);
      since = undefined;
      failures = 0;
      told.clear();
    },
    get down() {
      return since !== undefined;
    },
  };
}
