import { z } from 'zod';

/**
 * The column types the row schemas share. Rows arrive as Postgres serializes them to JSON, so
 * ids, dates and timestamps are strings.
 */
export const uuid = z.string();
export const text = z.string();
export const nullableText = z.string().nullable();
/** bigint sums arrive as strings from `pg`, numbers elsewhere. */
export const count = z.coerce.number().int().nonnegative();
/** A sum of USD (Postgres `numeric`, which the drivers hand over as a string). */
export const usd = z.coerce.number().nonnegative();
