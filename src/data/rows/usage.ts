import { z } from 'zod';
import { count, text, usd } from './fields.js';

/** The token ledger and the turn record: usage totals, the console's overview and turn list, pruning. */

export const usageTotalsRow = z.object({
  prompt_tokens: count,
  completion_tokens: count,
  turns: count,
  cached_prompt_tokens: count,
  reasoning_tokens: count,
  cost_usd: usd,
  unpriced_turns: count,
});
export const usageByDayRow = usageTotalsRow.extend({ tenant: z.string(), day: z.string() });
export const turnOverviewRow = z.object({
  tenant: z.string(),
  day: z.string(),
  turns: count,
  answered: count,
  refused: count,
  failed: count,
  flagged: count,
  prompt_tokens: count,
  completion_tokens: count,
  cached_prompt_tokens: count,
  cost_usd: usd,
  unpriced_turns: count,
});
export const turnListRow = z.object({
  id: z.coerce.number().int(),
  created_at: text,
  tenant: text,
  platform: text,
  thread_hash: text,
  user_hash: text,
  outcome: z.enum(['answered', 'refused', 'failed']),
  error_code: text.nullable(),
  flags: z.array(text),
  tools: z.array(
    z.object({
      tool: text,
      ok: z.boolean(),
      approval: z
        .object({
          outcome: z.enum(['approved', 'denied', 'expired']),
          approverHash: z.string().optional(),
          waitMs: z.number(),
        })
        .optional(),
    }),
  ),
  duration_ms: z.number().int(),
  model: text.nullable(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  cached_prompt_tokens: z.number().int(),
  cost_usd: usd.nullable(),
  trace_id: text.nullable(),
});
export const prunedRow = z.object({ deleted: count });
