import type { Config } from '../../config/index.js';
import type { ToolSet } from '../../contract/tool.js';
import { emitTools } from './emit-tools.js';
import { quoteExtension } from './modes.js';
import { createCatalogueCheck, createProductTools } from './product-tools.js';
import { createStartQuoteTool } from './start-tool.js';

/**
 * Quotes for a fabrication shop in three steps, each a mode that ends with an emit tool:
 * CALC (items and flat patterns) → PRICE (supplier prices from the catalogue) → TABLE
 * (the quote with checked totals). In conversation only `start_quote` is offered, to tenants
 * that have a product catalogue; the product tools belong to PRICE.
 */
export function createQuoteTools(config: Config): ToolSet {
  const hasCatalogue = createCatalogueCheck();
  return {
    tools: [...createProductTools(hasCatalogue), ...emitTools, createStartQuoteTool(hasCatalogue)],
    extensions: [quoteExtension(config)],
  };
}
