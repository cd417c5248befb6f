import type { Config } from '../config/index.js';
import { createArtifactTools } from './artifacts/index.js';
import { createBusinessTools } from './business/index.js';
import { createCampaignTools } from './campaigns/index.js';
import { createCompetitorTools } from './competitors/index.js';
import { createImageTools } from './images/index.js';
import { createMemoryFamily } from './memory/index.js';
import { createQuoteTools } from './quotes/index.js';
import type { ToolSet } from '../contract/tool.js';
import type { ToolFamily } from '../contract/toolsets.js';
import { createToolsets, gateExtension } from './toolsets.js';
import { createWebSearchTools } from './web-search/index.js';

/**
 * Every product tool family. Each returns no tools when its provider is not configured
 * (no TAVILY_API_KEY → no web_search); each tool is tagged with its family, offered only to
 * tenants that have the family on (src/tools/toolsets.ts), and its offer() decides per thread.
 */
export function createToolSet(config: Config): ToolSet {
  const toolsets = createToolsets();
  const families: [ToolFamily, ToolSet][] = [
    ['campaigns', createCampaignTools(config)],
    ['competitors', createCompetitorTools(config)],
    ['business', createBusinessTools(config)],
    ['quotes', createQuoteTools(config)],
    ['web', createWebSearchTools(config)],
    ['images', createImageTools(config)],
    ['artifacts', createArtifactTools(config)],
    ['memory', createMemoryFamily(config)],
  ];
  return {
    tools: families.flatMap(([family, set]) => set.tools.map((tool) => ({ ...tool, family }))),
    extensions: families.flatMap(([family, set]) => set.extensions.map((ext) => gateExtension(ext, family, toolsets))),
    toolsets,
  };
}
