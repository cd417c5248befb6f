import type { AnyTool, OfferContext } from '../../contract/tool.js';
import { defineTool } from '../../contract/tool.js';
import { aggregateTool } from './aggregate.js';
import { describeFilters, isEmpty } from './filters.js';
import { DEFAULT_LIMIT, filterInput, fullTextInput, semanticInput } from './input.js';
import { runCampaignSearch, type SearchDeps } from './search.js';
import { readCampaignState } from './state.js';

/**
 * The three campaign tools. Their descriptions tell the model when to use which: by
 * meaning, by exact dimensions (and for "what are the offers of X campaigns"), by words
 * in the copy. All three return the same result shape (see result.ts).
 */

export function campaignTools(deps: SearchDeps): AnyTool[] {
  const semantic = defineTool({
    name: 'semantic_search',
    title: 'Searching campaigns by meaning',
    description:
      'Find ad campaigns by meaning or theme ("travel benefits", "eco-friendly power"): an idea, not exact words or dimensions.',
    input: semanticInput,
    run: ({ query, embedding_field, reset_filters, limit, ...filters }, ctx) =>
      runCampaignSearch(
        {
          kind: 'semantic',
          tool: 'semantic_search',
          query,
          embeddingField: embedding_field ?? 'full',
          args: { ...filters, reset_filters },
          limit: limit ?? DEFAULT_LIMIT,
        },
        ctx,
        deps,
      ),
  });

  const filter = defineTool({
    name: 'filter_campaigns',
    title: 'Filtering campaigns',
    description:
      'List ad campaigns by exact dimensions ("recent X campaigns on Y", "offers of X campaigns"), with each offer, ' +
      'value props, sentiment and style.',
    input: filterInput,
    context: activeFiltersContext,
    run: ({ limit, ...args }, ctx) =>
      runCampaignSearch({ kind: 'filter', tool: 'filter_campaigns', args, limit: limit ?? DEFAULT_LIMIT }, ctx, deps),
  });

  const fullText = defineTool({
    name: 'full_text_search',
    title: 'Searching campaign copy',
    description: 'Find ad campaigns whose copy contains words or phrases ("which campaigns mention X / say Y").',
    input: fullTextInput,
    run: ({ query, reset_filters, limit, ...filters }, ctx) =>
      runCampaignSearch(
        {
          kind: 'text',
          tool: 'full_text_search',
          query,
          args: { ...filters, reset_filters },
          limit: limit ?? DEFAULT_LIMIT,
        },
        ctx,
        deps,
      ),
  });

  return [semantic, filter, fullText, aggregateTool()];
}

/** Tells the model which filters the thread has, so follow-ups ("only the email ones") build on them. */
export function activeFiltersContext(ctx: OfferContext): string | undefined {
  const { filters } = readCampaignState(ctx.state);
  if (isEmpty(filters)) return undefined;
  return (
    `Active campaign filters in this thread: ${describeFilters(filters).join('; ')}. ` +
    'The campaign tools apply them to every search; pass [] (or date_range "any") to drop one, or reset_filters: true when the user changes topic.'
  );
}
