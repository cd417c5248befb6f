import { z } from 'zod';
import { int } from './fields.js';

/** Long-term memory (issue 45): what the bot keeps between threads, and how much of it. */
export const memorySettings = z.object({
  /** Notes one person may have written (any scope) before `remember` refuses. */
  MEMORY_MAX_PER_USER: int(200, 1, 100_000),
  /** Notes one tenant may hold in all before `remember` refuses. */
  MEMORY_MAX_PER_TENANT: int(10_000, 1, 10_000_000),
  /** Days a note is kept after it was last saved; past them it is never recalled, listed or exported. */
  MEMORY_TTL_DAYS: int(365, 1, 36_500),
  /** Prompt tokens the recalled notes of one turn may take (0: recall nothing). */
  MEMORY_MAX_TOKENS: int(300, 0, 4_000),
});
