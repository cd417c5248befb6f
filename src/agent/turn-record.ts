import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { TurnRecord } from '../contract/data.js';
import { threadKey } from '../contract/thread-state.js';
import type { ErrorCode, IncomingMessage, TurnFlag, Usage } from '../contract/turn.js';

/** What the turn's summary log line and its turn record say, filled in as the turn goes. */
export interface TurnSummary {
  tenant?: string;
  /** The tenant's id once known: a turn refused before (an unmapped workspace) has no turn record. */
  tenantId?: string;
  outcome: string;
  usage?: Usage;
  tools?: number;
  /** The turn's flags once its message was checked (a failed turn's record keeps them). */
  flags?: TurnFlag[];
  /** The tools whose results came back so far (a failed turn's record lists them). */
  toolResults: { tool: string; ok: boolean }[];
  /** performance.now() when the turn was handed in. */
  started: number;
  /** Long-term memory notes recalled into the prompt (issue 45): the record keeps the count. */
  memories?: number;
  /** Its turn record was written (a failure after that, saving the thread, adds no second one). */
  recorded?: boolean;
  /** The turn record's id, decided when the turn starts: an answer's feedback names it (issue 47). */
  id?: string;
  /** Where each setting of the turn came from (channel, tenant, default; issue 46), once the channel was read. */
  settings?: Record<string, string>;
}

/** Error codes that mean the bot declined the turn (a limit, a budget, the request itself), not that it broke. */
const REFUSALS: ReadonlySet<ErrorCode> = new Set([
  'rate_limited',
  'budget_exhausted',
  'bad_request',
  'tenant_not_configured',
]);

/** A turn that ended with `code`: declined by the bot (`refused`) or broken (`failed`). */
export const failedOutcome = (code: ErrorCode): 'refused' | 'failed' => (REFUSALS.has(code) ? 'refused' : 'failed');

export interface TurnRecorderOptions {
  /** TURN_LOG_HASH_KEY: the key of the thread and user hashes (default: random per process). */
  hashKey?: string;
  /** The id of the trace the turn runs in, when tracing is on (kept for the console's link). */
  traceId?: () => string | undefined;
}

/**
 * Builds a turn's record for the operator console (`turn_log`): ids only as keyed hashes (equal
 * ids give equal hashes, and without the key nobody can tell which id it was), never the message.
 */
export function createTurnRecorder(opts: TurnRecorderOptions) {
  const hashKey = opts.hashKey ?? randomBytes(32).toString('hex');
  const idHash = (value: string) => keyedHash(hashKey, value);

  return function turnRecord(
    message: IncomingMessage,
    tenantId: string,
    seen: TurnSummary,
    outcome: Pick<TurnRecord, 'outcome' | 'errorCode' | 'flags' | 'tools'>,
  ): TurnRecord {
    let traceId: string | undefined;
    try {
      traceId = opts.traceId?.();
    } catch {
      traceId = undefined;
    }
    return {
      ...outcome,
      // Both rows of the turn carry it: a second write of the turn (the usage journal's) is skipped.
      id: seen.id ?? randomUUID(),
      durationMs: performance.now() - seen.started,
      threadHash: idHash(threadKey(message, tenantId)),
      userHash: idHash(userHashInput(message.platform, tenantId, message.userId)),
      ...(traceId ? { traceId } : {}),
      ...(seen.settings ? { settings: seen.settings } : {}),
      ...(seen.memories ? { memories: seen.memories } : {}),
    };
  };
}

/** A keyed hash (HMAC-SHA-256, 24 hex digits): equal values give equal hashes; without the key nobody can tell which. */
export const keyedHash = (hashKey: string, value: string): string =>
  createHmac('sha256', hashKey).update(value).digest('hex').slice(0, 24);

/** What a person's hash is taken of: the same for their turns and their votes on answers (issue 47). */
export const userHashInput = (platform: string, tenantId: string, userId: string): string =>
  `${platform}:${tenantId}:${userId}`;
