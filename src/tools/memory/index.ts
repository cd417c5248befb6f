import type { ToolSet } from '../../contract/tool.js';
import { memoryExtension } from './listing.js';
import { createRecall } from './recall.js';
import type { MemoryConfig } from './settings.js';
import { createMemoryTools } from './tools.js';

export { asksToRememberOrForget } from './intent.js';
export { scrubNote } from './scrub.js';
export { MEMORY_NOTE_HEAD } from './recall.js';

/**
 * Long-term memory (issue 45): `remember` and `forget` (offered when a message asks to remember or
 * forget), the recall before a turn's first model call, `/memory` and its Forget buttons. On by
 * default (the automatic toolset); a tenant turns it off by naming its families without `memory`,
 * or with the approval policy `memory=off`.
 */
export function createMemoryFamily(config: MemoryConfig): ToolSet {
  return {
    tools: createMemoryTools(config),
    extensions: [memoryExtension(config.MEMORY_MAX_TOKENS > 0 ? createRecall(config) : undefined)],
  };
}
