import type { Config } from '../../config/index.js';
import type { ToolSet } from '../../contract/tool.js';
import { createCompetitorDirectory } from './directory.js';
import { createLookupCompetitorTool } from './lookup-tool.js';

export { LOOKUP_COMPETITOR } from './lookup-tool.js';
export { COMPETITORS_FAMILY, fetchedCompetitors, type FetchedCompetitor } from './state.js';

/** How long a tenant's competitor ids are reused before they are loaded again. */
export const COMPETITOR_IDS_TTL_MS = 5 * 60_000;
/** A single-row read by primary key: anything slower is a problem worth surfacing. */
const LOOKUP_TIMEOUT_MS = 5_000;

export interface CompetitorToolOptions {
  idsTtlMs?: number;
  /** Clock of the id cache (tests). */
  now?: () => number;
}

/**
 * The lazy competitor lookup (docs/competitors.md): ids and names are loaded per tenant (cached), a
 * description only when the model asks for it; the description goes into thread state and
 * from there into later steps' context and the user's card, never into the tool result.
 */
export function createCompetitorTools(config: Config, opts: CompetitorToolOptions = {}): ToolSet {
  const directory = createCompetitorDirectory(opts.idsTtlMs ?? COMPETITOR_IDS_TTL_MS, opts.now);
  const tool = createLookupCompetitorTool({
    directory,
    timeoutMs: Math.min(config.TOOL_TIMEOUT_MS, LOOKUP_TIMEOUT_MS),
  });
  return { tools: [tool], extensions: [] };
}
