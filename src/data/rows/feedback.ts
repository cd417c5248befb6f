import { z } from 'zod';
import { count, nullableText, text, usd, uuid } from './fields.js';

/** Feedback on answers (issue 47): rows of feedback_record, feedback_overview and list_feedback. */

export const feedbackValue = z.enum(['up', 'down']);

export const feedbackRecordedRow = z.object({
  status: z.enum(['recorded', 'unknown_turn']),
  previous: feedbackValue.nullable(),
  value: feedbackValue.nullable(),
  changed: z.boolean(),
  trace_id: nullableText,
});

export const feedbackOverviewRow = z.object({
  dimension: z.enum(['tenant', 'model', 'tools']),
  key: text,
  up: count,
  down: count,
});

export const feedbackListRow = z.object({
  turn_id: uuid,
  voted_at: text,
  tenant: text,
  platform: text,
  value: feedbackValue,
  comment: nullableText,
  turn_at: text,
  tools: z.array(z.object({ tool: text, ok: z.boolean() }).loose()),
  model: nullableText,
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  cost_usd: usd.nullable(),
  trace_id: nullableText,
  outcome: z.enum(['answered', 'refused', 'failed']),
  flags: z.array(text),
});
