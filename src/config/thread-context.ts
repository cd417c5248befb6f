import { z } from 'zod';
import { int } from './fields.js';

/** The thread before a mention (src/agent/thread-context.ts, README "The thread before a mention"). */
export const threadContextSettings = z.object({
  /** `off`: the model sees only the message and the bot's own history; a tenant may turn it off alone (`npm run tenants -- thread-context`). */
  THREAD_CONTEXT: z.enum(['on', 'off']).default('on'),
  /** Earlier messages read at most per turn; the newest are kept. */
  THREAD_CONTEXT_MAX_MESSAGES: int(50, 1, 1_000),
  /** Tokens the earlier messages may take in the prompt; the newest are kept, "[N earlier messages not shown]" where cut. */
  THREAD_CONTEXT_MAX_TOKENS: int(3_000, 100, 100_000),
});
