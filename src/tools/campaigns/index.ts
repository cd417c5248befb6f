import type { Config } from '../../config/index.js';
import type { ToolSet } from '../../contract/tool.js';
import { campaignActions } from './actions.js';
import { campaignTools } from './tools.js';

/**
 * The campaign search family: `semantic_search`, `filter_campaigns` and
 * `full_text_search`, plus the actions behind their buttons (`campaigns.more`,
 * `campaigns.clear`). Always offered: they need only the data port, and semantic
 * search falls back to full-text where vectors or an embedding model are missing.
 */
export function createCampaignTools(config: Pick<Config, 'EMBEDDING_MODEL'>): ToolSet {
  return {
    tools: campaignTools({ embeddingModel: config.EMBEDDING_MODEL }),
    extensions: [campaignActions()],
  };
}

export { buildCampaignResult, type Campaign, type CampaignResult } from './result.js';
