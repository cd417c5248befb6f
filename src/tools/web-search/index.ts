import { z } from 'zod';
import { cacheGet, cacheSet } from '../../contract/thread-state.js';
import type { Config } from '../../config/index.js';
import type { ToolSet } from '../../contract/tool.js';
import { defineTool, ToolError, type ToolContext } from '../../contract/tool.js';
import { citationsBlock, fenceResults } from './fence.js';
import { rewriteSearchQuery, type RewrittenQuery } from './rewrite.js';
import { createTavilyClient, WebSearchError, type WebResult, type WebSearchClient } from './tavily.js';

export { FENCE_NOTE } from './fence.js';
export { cleanModelQuery, rewriteSearchQuery, skipReason, withYear, type RewrittenQuery } from './rewrite.js';

export interface WebSearchOptions {
  /** How long the model may take to rewrite a query before the original is searched (default 2 s). */
  rewriteTimeoutMs?: number;
  /** How long Tavily may take to answer (default 10 s). */
  searchTimeoutMs?: number;
  /** How long a thread remembers a search's results (default 15 min). */
  cacheTtlMs?: number;
}

export const DEFAULT_MAX_RESULTS = 5;
const DEFAULT_REWRITE_TIMEOUT_MS = 2_000;
const DEFAULT_SEARCH_TIMEOUT_MS = 10_000;
const DEFAULT_CACHE_TTL_MS = 15 * 60_000;
const CACHE_PREFIX = 'web_search:';

interface CachedSearch {
  query: string;
  reason: RewrittenQuery['reason'];
  results: WebResult[];
}

const input = z.object({
  query: z
    .string()
    .trim()
    .min(1, 'give the words to search for')
    .max(400, 'keep the query under 400 characters')
    .describe('The question or search query'),
  max_results: z
    .number()
    // Bounds checked here, not sent: minimum/maximum cost tokens in every request's schema.
    .refine((n) => Number.isInteger(n) && n >= 1 && n <= 10, { error: 'a whole number from 1 to 10' })
    .optional()
    .describe(`Default ${DEFAULT_MAX_RESULTS}, max 10`),
});

/** `web_search`, offered only when TAVILY_API_KEY is set. */
export function createWebSearchTools(
  config: Pick<Config, 'TAVILY_API_KEY' | 'TAVILY_API_URL'> & Partial<Pick<Config, 'REWRITE_MODEL'>>,
  opts: WebSearchOptions = {},
): ToolSet {
  if (!config.TAVILY_API_KEY) return { tools: [], extensions: [] };
  const rewriteTimeoutMs = opts.rewriteTimeoutMs ?? DEFAULT_REWRITE_TIMEOUT_MS;
  const searchTimeoutMs = opts.searchTimeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS;
  const cacheTtlMs = opts.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
  const client = createTavilyClient({
    apiKey: config.TAVILY_API_KEY,
    apiUrl: config.TAVILY_API_URL,
    timeoutMs: searchTimeoutMs,
  });

  const tool = defineTool({
    name: 'web_search',
    title: 'Searching the web',
    // Pages are written by anyone: a write or spend after them waits for a person (issue 43).
    taints: true,
    description: 'Search the web for current information (news, releases, docs) outside our data. Cite results as [n].',
    input,
    // The rewrite and the search each have their own limit; the tool's covers both.
    timeoutMs: rewriteTimeoutMs + searchTimeoutMs + 1_000,
    async run({ query, max_results }, ctx) {
      const maxResults = max_results ?? DEFAULT_MAX_RESULTS;
      const key = `${CACHE_PREFIX}${maxResults}:${normalize(query)}`;
      const cached = cacheGet<CachedSearch>(ctx.state, key);
      if (cached) {
        ctx.log.debug({ tool: 'web_search', cached: true, results: cached.results.length }, 'web search');
        return deliver(ctx, { ...cached, original: query, cached: true });
      }

      const started = performance.now();
      const rewritten = await rewriteSearchQuery(query, {
        llm: ctx.llm,
        now: ctx.now,
        signal: ctx.signal,
        timeoutMs: rewriteTimeoutMs,
        ...(config.REWRITE_MODEL ? { model: config.REWRITE_MODEL } : {}),
      });
      const rewriteMs = Math.round(performance.now() - started);
      const results = await search(client, rewritten.query, maxResults, ctx);
      ctx.log.debug(
        {
          tool: 'web_search',
          cached: false,
          rewrite: rewritten.reason,
          yearAdded: rewritten.yearAdded,
          results: results.length,
          rewriteMs,
          searchMs: Math.round(performance.now() - started) - rewriteMs,
        },
        'web search',
      );
      ctx.log.debug({ original: query, query: rewritten.query }, 'web search query');
      const entry: CachedSearch = { query: rewritten.query, reason: rewritten.reason, results };
      cacheSet(ctx.state, key, entry, cacheTtlMs);
      return deliver(ctx, { ...entry, original: query, cached: false });
    },
  });
  return { tools: [tool], extensions: [] };
}

async function search(
  client: WebSearchClient,
  query: string,
  maxResults: number,
  ctx: ToolContext,
): Promise<WebResult[]> {
  try {
    return await client.search(query, { maxResults, signal: ctx.signal });
  } catch (err) {
    if (!(err instanceof WebSearchError)) throw err;
    ctx.log.warn({ tool: 'web_search', err }, 'web search unavailable');
    throw new ToolError(
      'Web search is unavailable right now (the search service did not answer). Do not retry: answer without it and tell the user you could not search the web.',
    );
  }
}

function deliver(ctx: ToolContext, search: CachedSearch & { original: string; cached: boolean }) {
  const { query, original, results } = search;
  const citations = citationsBlock(results);
  ctx.emit({
    type: 'tool_event',
    name: 'web_search',
    data: {
      query,
      originalQuery: original,
      rewritten: query !== original.trim(),
      rewrite: search.reason,
      cached: search.cached,
      sources: citations.sources,
    },
  });
  return {
    content: fenceResults(query, original, results),
    summary: `${results.length} result${results.length === 1 ? '' : 's'} for "${query}"${search.cached ? ' (cached)' : ''}`,
    // Each query keeps its own sources: two searches in one turn cite both.
    ...(results.length > 0 ? { blocks: [citations], blocksKey: `web_search:${query}` } : {}),
  };
}

function normalize(query: string): string {
  return query.trim().toLowerCase().replace(/\s+/g, ' ');
}
