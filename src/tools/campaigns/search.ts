import { DataError } from '../../contract/data.js';
import { campaignRow, embeddingStatusRow, semanticCampaignRow, textCampaignRow } from '../../data/rows.js';
import { ToolError, type ToolContext, type ToolOutput } from '../../contract/tool.js';
import { campaignPage } from './cards.js';
import { embedQuery } from './embedding.js';
import { loadFacets, resolveFilterValues, type ResolvedFilters } from './facets.js';
import {
  LIST_DIMENSIONS,
  activeDimensions,
  describeFilters,
  detectedFilters,
  dimensionLabel,
  isEmpty,
  mergeFilters,
  toSqlArgs,
  withoutDimension,
  type CampaignFilters,
  type FilterArgs,
  type SqlFilterArgs,
} from './filters.js';
import { MAX_QUERY_TERMS, boundQueryTerms, cleanText } from './query-text.js';
import { campaignToolResult, type Campaign } from './result.js';
import { newResultId, readCampaignState, writeCampaignState } from './state.js';
import { followUps, type Relaxation, type SearchKind } from './suggestions.js';

/**
 * One campaign search, whichever tool asked: merge the filters with the thread's active
 * ones, map their values onto the tenant's vocabulary, run the SQL function, and turn
 * the rows into the shared result (model text, cards, API data, thread state).
 */
export interface SearchRequest {
  kind: SearchKind;
  tool: string;
  query?: string;
  /** Semantic search: rank by the whole campaign's vector (default) or the ad copy's alone. */
  embeddingField?: 'full' | 'campaign_text';
  args: FilterArgs;
  limit: number;
}

export interface SearchDeps {
  embeddingModel: string | undefined;
}

/** Campaigns for the given SQL filters and limit. */
type Search = (filters: SqlFilterArgs, limit: number) => Promise<Campaign[]>;

const ORDER: Record<SearchKind, string> = {
  filter: 'newest first',
  text: 'best match first',
  semantic: 'closest in meaning first',
};
/** How many campaigns a "what if this filter were dropped" probe counts up to. */
const PROBE_LIMIT = 50;

export async function runCampaignSearch(req: SearchRequest, ctx: ToolContext, deps: SearchDeps): Promise<ToolOutput> {
  const today = ctx.now();
  const saved = readCampaignState(ctx.state);
  const merged = mergeFilters(saved.filters, req.args);
  const resolved: ResolvedFilters = LIST_DIMENSIONS.some((d) => merged[d.key]?.length)
    ? resolveFilterValues(merged, await guard(ctx, () => loadFacets(ctx, Date.now())))
    : { filters: merged, unknown: [], impossible: [] };
  const filters = resolved.filters;
  const sql = toSqlArgs(filters, today);
  if (!sql.ok) throw new ToolError(sql.error);

  const notes = resolved.unknown.map(
    (u) =>
      `${dimensionLabel(u.dimension)} ${u.values.map((v) => `"${v}"`).join(', ')} matches no campaign, so it was not applied; ` +
      `${u.elsewhere.length ? `${u.elsewhere.join('; ')}; ` : ''}known values: ${u.known.join(', ')}.`,
  );
  let query = req.query === undefined ? undefined : cleanText(req.query);
  if (query === '') throw new ToolError('The query has no searchable text. Give a few words to look for.');
  if (query !== undefined && req.kind === 'text') {
    const bounded = boundQueryTerms(query);
    if (bounded.cut) notes.push(`The query was long: only its first ${MAX_QUERY_TERMS} words were searched.`);
    query = bounded.query;
  }

  let kind = req.kind;
  let campaigns: Campaign[] = [];
  let search: Search | undefined;
  if (resolved.impossible.length === 0) {
    const chosen = await chooseSearch(req.kind, query ?? '', ctx, deps, notes, req.embeddingField);
    ({ kind, search } = chosen);
    campaigns = await guard(ctx, () => chosen.search(sql.args, req.limit));
    if (campaigns.length === 0 && kind === 'semantic' && !(await anyEmbeddings(ctx))) {
      notes.push(
        'No campaign has an embedding yet (an admin runs `npm run db:embed`); these are full-text matches instead.',
      );
      const fallback = textSearch(ctx, anyWords(query ?? ''));
      kind = 'text';
      search = fallback;
      campaigns = await guard(ctx, () => fallback(sql.args, req.limit));
    }
  }

  const relaxations = campaigns.length === 0 && search ? await probeRelaxations(search, filters, today) : [];
  if (relaxations.length) {
    notes.push(
      'Without one filter: ' +
        relaxations
          .map((r) => `no ${dimensionLabel(r.dimension)} filter → ${r.count}${r.capped ? '+' : ''} campaigns`)
          .join('; ') +
        '. Tell the user and offer the closest alternative.',
    );
  }

  const filterLabels = describeFilters(filters, today);
  const found = campaigns.length > 0;
  const earlierFound = saved.turn?.messageId === ctx.message.messageId && saved.turn.found;
  const resultId = found ? newResultId() : (saved.last?.id ?? newResultId());
  writeCampaignState(ctx.state, {
    filters,
    ...(found
      ? { last: { id: resultId, tool: req.tool, campaigns, filterLabels } }
      : saved.last
        ? { last: saved.last }
        : {}),
    turn: { messageId: ctx.message.messageId, found: found || earlierFound },
  });

  const suggestions = followUps({ kind, query, filters, campaigns, relaxations });
  const { content } = campaignToolResult(campaigns, {
    order: ORDER[kind],
    limitReached: campaigns.length >= req.limit,
    filters: filterLabels,
    notes,
    shownAsCards: found,
  });
  const summary = found
    ? `${campaigns.length} campaign${campaigns.length === 1 ? '' : 's'}${kind !== req.kind ? ' (full-text fallback)' : ''}`
    : 'No campaigns found';
  ctx.log.debug(
    { tool: req.tool, kind, found: campaigns.length, filters: activeDimensions(filters), fallback: kind !== req.kind },
    'campaign search',
  );

  // An empty search after one that found campaigns in the same turn leaves those cards and data in place.
  if (!found && earlierFound) return { content, summary };
  return {
    content,
    summary,
    blocksKey: 'campaigns',
    blocks: campaignPage({ campaigns, offset: 0, resultId, filterLabels, canClear: !isEmpty(filters), suggestions }),
    data: { campaigns, total: campaigns.length, suggestions, detectedFilters: detectedFilters(filters, sql.dates) },
  };
}

/** The search to run; semantic search falls back to full-text (with a note) when it cannot run. */
async function chooseSearch(
  kind: SearchKind,
  query: string,
  ctx: ToolContext,
  deps: SearchDeps,
  notes: string[],
  embeddingField: SearchRequest['embeddingField'] = 'full',
): Promise<{ kind: SearchKind; search: Search }> {
  if (kind === 'filter') return { kind, search: filterSearch(ctx) };
  if (kind === 'text') return { kind, search: textSearch(ctx, query) };
  const embedding = await embedQuery(query, ctx, deps.embeddingModel);
  if (embedding.ok) return { kind, search: semanticSearch(ctx, embedding.vector, query, notes, embeddingField) };
  notes.push(
    `Semantic search is unavailable (${embedding.reason}); these are full-text matches for any of the words instead.`,
  );
  return { kind: 'text', search: textSearch(ctx, anyWords(query)) };
}

function filterSearch(ctx: ToolContext): Search {
  return (filters, limit) => ctx.data.call('filter_campaigns', { ...filters, limit }, campaignRow);
}

function textSearch(ctx: ToolContext, query: string): Search {
  return (filters, limit) => ctx.data.call('search_campaigns_by_text', { query, ...filters, limit }, textCampaignRow);
}

function semanticSearch(
  ctx: ToolContext,
  vector: number[],
  query: string,
  notes: string[],
  field: 'full' | 'campaign_text',
): Search {
  return async (filters, limit) => {
    try {
      const args = { query_embedding: vector, ...filters, limit };
      if (field === 'campaign_text') {
        const byCopy = await ctx.data.call('search_campaigns_by_copy', args, semanticCampaignRow);
        if (byCopy.length > 0) return byCopy;
        // No copy vectors yet (an older database, or db:embed not rerun): the whole-campaign ones still answer.
        const whole = await ctx.data.call('search_campaigns', args, semanticCampaignRow);
        if (whole.length > 0 && !notes.some((n) => n.startsWith('No ad-copy embeddings'))) {
          notes.push(
            'No ad-copy embeddings match these filters yet (an admin reruns `npm run db:embed`); these are ranked by the whole campaign instead.',
          );
        }
        return whole;
      }
      return await ctx.data.call('search_campaigns', args, semanticCampaignRow);
    } catch (err) {
      // pgvector went away, or the vector does not fit the column: answer from full-text.
      if (!(err instanceof DataError) || (err.code !== 'unavailable' && err.code !== 'invalid_input')) throw err;
      ctx.log.warn({ code: err.code }, 'semantic search failed; falling back to full-text search');
      if (!notes.some((n) => n.startsWith('Semantic search'))) {
        notes.push(
          'Semantic search is unavailable in this database; these are full-text matches for any of the words instead.',
        );
      }
      return ctx.data.call('search_campaigns_by_text', { query: anyWords(query), ...filters, limit }, textCampaignRow);
    }
  };
}

async function anyEmbeddings(ctx: ToolContext): Promise<boolean> {
  const [status] = await guard(ctx, () => ctx.data.call('embedding_status', {}, embeddingStatusRow));
  return (status?.embedded ?? 0) > 0;
}

/**
 * A description ("travel benefits for families") as a full-text query that matches any
 * of its words, ranked by how many match: the stand-in for meaning when there are no vectors.
 */
export function anyWords(text: string): string {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [];
  return [...new Set(words)]
    .filter((w) => w !== 'or')
    .slice(0, MAX_QUERY_TERMS)
    .join(' OR ');
}

/** For an empty result: how many campaigns each single filter, dropped, would let through. */
async function probeRelaxations(search: Search, filters: CampaignFilters, today: Date): Promise<Relaxation[]> {
  const dims = activeDimensions(filters).slice(0, 5);
  const probes = await Promise.all(
    dims.map(async (dimension): Promise<Relaxation | undefined> => {
      const sql = toSqlArgs(withoutDimension(filters, dimension), today);
      if (!sql.ok) return undefined;
      try {
        const rows = await search(sql.args, PROBE_LIMIT);
        return { dimension, count: rows.length, capped: rows.length >= PROBE_LIMIT };
      } catch {
        return undefined; // a hint, not the answer: its failure is already logged by the port
      }
    }),
  );
  return probes.filter((p): p is Relaxation => p !== undefined);
}

/** Database rejections become a fixable error; anything else is an internal failure (logged by the loop). */
export async function guard<T>(ctx: ToolContext, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof DataError && err.code === 'invalid_input') {
      ctx.log.warn({ fn: err.fn, code: err.code }, 'campaign search arguments rejected by the database');
      throw new ToolError(
        'The database rejected these search arguments. Check the filter values and date_range, or use simpler words.',
      );
    }
    throw err;
  }
}
