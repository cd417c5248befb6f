import { z } from 'zod';
import { text } from './fields.js';

/** The database's own state: its schema version and a running import. */

export const schemaInfoRow = z.object({
  version: text,
  vectors_available: z.boolean(),
  embedding_dimensions: z.number().int().nullable(),
});

export const importCommitRow = z.object({
  table_name: text,
  inserted: z.number().int(),
  updated: z.number().int(),
  total: z.number().int(),
});
