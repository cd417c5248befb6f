import type { Config } from '../../config/index.js';

/** What the memory family reads of the configuration. */
export type MemoryConfig = Pick<
  Config,
  'MEMORY_MAX_PER_USER' | 'MEMORY_MAX_PER_TENANT' | 'MEMORY_TTL_DAYS' | 'MEMORY_MAX_TOKENS' | 'EMBEDDING_MODEL'
>;
