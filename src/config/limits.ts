import { z } from 'zod';
import { int, optionalPositiveInt, optionalUsd } from './fields.js';
import { parseToolLimits } from './tool-limits.js';

/** The loop's caps, the history budget, token and USD budgets, and the per-user rate limits. */
export const limitSettings = z.object({
  AGENT_MAX_STEPS: int(5, 1, 50),
  AGENT_MAX_TOOL_CALLS: int(3, 1, 50),
  TOOL_TIMEOUT_MS: int(10_000, 100),
  TURN_TIMEOUT_MS: int(120_000, 1_000),
  /**
   * Token budget of the thread history sent to the model. Unset: 5% of the model's context
   * window when the price catalogue (or MODEL_PRICES) knows it, between 2,000 and 32,000; else 6,000.
   */
  HISTORY_MAX_TOKENS: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === undefined || v === '' ? undefined : Number(v)))
    .pipe(z.number({ error: 'expected a whole number' }).int('expected a whole number').min(200).optional()),
  THREAD_TTL_DAYS: int(30, 1),
  /** Tokens (prompt + completion) one user may use per UTC day; unset = unlimited. */
  TOKEN_BUDGET_PER_USER_DAILY: optionalPositiveInt,
  /** Tokens one tenant may use per UTC month; unset = unlimited. */
  TOKEN_BUDGET_PER_TENANT_MONTHLY: optionalPositiveInt,
  /** USD one tenant may spend per UTC month (from the ledger's costs); unset = unlimited. */
  BUDGET_USD_PER_TENANT_MONTHLY: optionalUsd,
  /** Messages one user may send per minute; over it they get one notice and no answers (0: off). */
  USER_MESSAGES_PER_MINUTE: int(20, 0, 10_000),
  /** JSON over the default per-user tool limits, e.g. {"web_search":{"guest":20,"member":200,"windowHours":5}}. */
  TOOL_RATE_LIMITS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      try {
        return parseToolLimits(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
        return z.NEVER;
      }
    }),
});
