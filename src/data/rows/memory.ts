import { z } from 'zod';
import { count, nullableText, text, uuid } from './fields.js';

/** Long-term memory (issue 45): rows of the memory_* functions. */

export const memoryScope = z.enum(['user', 'channel', 'team']);
export type MemoryScope = z.infer<typeof memoryScope>;

export const memoryAddedRow = z.object({
  id: uuid.nullable(),
  status: z.enum(['saved', 'exists', 'user_full', 'tenant_full', 'not_allowed']),
  scope: memoryScope,
  text,
  everywhere: z.boolean(),
  created_at: nullableText,
  expires_at: nullableText,
  user_count: count,
  tenant_count: count,
});

export const memoryRecallRow = z.object({
  id: uuid,
  scope: memoryScope,
  text,
  everywhere: z.boolean(),
  created_at: text,
  score: z.number(),
});

export const memoryListRow = z.object({
  id: uuid,
  scope: memoryScope,
  text,
  everywhere: z.boolean(),
  mine: z.boolean(),
  created_at: text,
  expires_at: text,
});

export const memoryForgetRow = z.object({
  id: uuid,
  scope: memoryScope.nullable(),
  text: nullableText,
  status: z.enum(['forgotten', 'not_allowed', 'not_found']),
});

export const memoryEmbeddingRow = z.object({ updated: count });

export const memoryCountRow = z.object({ slug: text, scope: memoryScope, memories: count });

export const memoryAdminRow = z.object({
  id: uuid,
  scope: memoryScope,
  platform: text,
  author_id: text,
  channel_id: nullableText,
  everywhere: z.boolean(),
  text,
  created_at: text,
  expires_at: text,
});

export const memoryPurgedRow = z.object({ deleted: count });

/** The console's Forget: a team or channel note's scope and place, never its text. */
export const memoryAdminForgetRow = z.object({
  id: uuid,
  scope: memoryScope.nullable(),
  platform: nullableText,
  channel_id: nullableText,
  status: z.enum(['forgotten', 'not_allowed', 'not_found']),
});
