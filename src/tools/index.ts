import type { Config } from '../config.js';
import { createArtifactTools } from './artifacts/index.js';
import { createBusinessTools } from './business/index.js';
import { createCampaignTools } from './campaigns/index.js';
import { createCompetitorTools } from './competitors/index.js';
import { createImageTools } from './images/index.js';
import { createQuoteTools } from './quotes/index.js';
import type { ToolSet } from '../contract/tool.js';
import { createWebSearchTools } from './web-search/index.js';

/**
 * Every product tool family. Each returns no tools when its provider is not configured
 * (no TAVILY_API_KEY → no web_search), and each tool's offer() decides per thread.
 */
export function createToolSet(config: Config): ToolSet {
  const families: ToolSet[] = [
    createCampaignTools(config),
    createCompetitorTools(config),
    createBusinessTools(config),
    createQuoteTools(config),
    createWebSearchTools(config),
    createImageTools(config),
    createArtifactTools(config),
  ];
  return {
    tools: families.flatMap((f) => f.tools),
    extensions: families.flatMap((f) => f.extensions),
  };
}
