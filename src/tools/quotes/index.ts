import type { Config } from '../../config.js';
import type { ToolSet } from '../index.js';
import { emitTools } from './emit-tools.js';
import { quoteExtension } from './modes.js';
import { createCatalogueCheck, createProductTools } from './product-tools.js';
import { createStartQuoteTool } from './start-tool.js';

/**
 * Quotes for a fabrication shop in three steps, each a mode that ends with an emit tool:
 * CALC (items and flat patterns) → PRICE (supplier prices from the catalogue) → TABLE
 * (the quote with checked totals). The product tools and `start_quote` are also offered in
 * conversation, to tenants that have a product catalogue.
 */
export function createQuoteTools(config: Config): ToolSet {
  const hasCatalogue = createCatalogueCheck();
  return {
    tools: [...createProductTools(hasCatalogue), ...emitTools, createStartQuoteTool(hasCatalogue)],
    extensions: [quoteExtension(config)],
  };
}
