import { z } from 'zod';
import { aggregationRow } from '../../data/rows.js';
import { defineTool, ToolError, type AnyTool } from '../../contract/tool.js';
import { loadFacets, resolveFilterValues } from './facets.js';
import { LIST_DIMENSIONS, describeFilters, detectedFilters, mergeFilters, toSqlArgs } from './filters.js';
import { count, plainFilterFields } from './input.js';
import { guard } from './search.js';
import { readCampaignState, writeCampaignState } from './state.js';

/**
 * `aggregate_campaigns`: counts instead of cards. "How many campaigns per channel?",
 * "which companies ran the most cash-back offers last quarter?" group the campaigns matching
 * the usual filters (merged with the thread's active ones, like filter_campaigns) by one
 * dimension in SQL and answer with the top groups: a table for the user, a short ranked list
 * for the model, and `aggregation` in the HTTP API's response.
 */

export const GROUP_BY = ['channel', 'company', 'brand', 'value_prop', 'sentiment', 'visual_style', 'month'] as const;
export type GroupBy = (typeof GROUP_BY)[number];
const LABEL: Record<GroupBy, string> = {
  channel: 'Channel',
  company: 'Company',
  brand: 'Brand',
  value_prop: 'Value prop',
  sentiment: 'Sentiment',
  visual_style: 'Visual style',
  month: 'Month',
};
export const DEFAULT_TOP = 10;
const NONE = '(none)';

export const aggregateInput = z.object({
  ...plainFilterFields,
  group_by: z.enum(GROUP_BY),
  top: count(50).optional().describe(`Default ${DEFAULT_TOP}`),
});

export interface Aggregation {
  groupBy: GroupBy;
  /** Campaigns matching the filters. */
  total: number;
  /** Distinct groups among them (rows may be fewer: the top N). */
  groups: number;
  rows: { value: string | null; campaigns: number }[];
  filters: Record<string, unknown>;
}

export function aggregateTool(): AnyTool {
  return defineTool({
    name: 'aggregate_campaigns',
    title: 'Counting campaigns',
    description:
      'Count ad campaigns per group_by value ("campaigns per channel", "companies with most cash-back offers last ' +
      'quarter") as a table; filters as in filter_campaigns.',
    input: aggregateInput,
    async run({ group_by: groupBy, top, ...args }, ctx) {
      const today = ctx.now();
      const saved = readCampaignState(ctx.state);
      const merged = mergeFilters(saved.filters, args);
      const resolved = LIST_DIMENSIONS.some((d) => merged[d.key]?.length)
        ? resolveFilterValues(merged, await guard(ctx, () => loadFacets(ctx, Date.now())))
        : { filters: merged, unknown: [], impossible: [] };
      const sql = toSqlArgs(resolved.filters, today);
      if (!sql.ok) throw new ToolError(sql.error);
      const rows = resolved.impossible.length
        ? []
        : await guard(ctx, () =>
            ctx.data.call(
              'aggregate_campaigns',
              { group_by: groupBy, ...sql.args, limit: top ?? DEFAULT_TOP },
              aggregationRow,
            ),
          );
      // The filters stay active for follow-ups ("now only the email ones").
      writeCampaignState(ctx.state, { ...saved, filters: resolved.filters });

      const aggregation: Aggregation = {
        groupBy,
        total: rows[0]?.total ?? 0,
        groups: rows[0]?.groups ?? 0,
        rows: rows.map((r) => ({ value: r.value, campaigns: r.campaigns })),
        filters: detectedFilters(resolved.filters, sql.dates),
      };
      const label = LABEL[groupBy];
      const filterLabels = describeFilters(resolved.filters, today);
      const notes = resolved.unknown.map(
        (u) =>
          `${u.values.map((v) => `"${v}"`).join(', ')} matches no campaign, so it was not applied; known values: ${u.known.join(', ')}.`,
      );
      ctx.log.debug(
        { tool: 'aggregate_campaigns', groupBy, total: aggregation.total, groups: aggregation.groups },
        'campaign aggregation',
      );
      if (aggregation.total === 0) {
        return {
          content: [
            `No campaigns match${filterLabels.length ? ` (filters: ${filterLabels.join('; ')})` : ''}, so there is nothing to count.`,
            ...notes,
          ].join('\n'),
          summary: 'No campaigns to count',
          data: { aggregation },
        };
      }
      const share = (n: number) => `${Math.round((100 * n) / aggregation.total)}%`;
      const shown =
        rows.length < aggregation.groups
          ? `the top ${rows.length} of ${aggregation.groups} ${label.toLowerCase()} groups`
          : `${aggregation.groups} ${label.toLowerCase()} group${aggregation.groups === 1 ? '' : 's'}`;
      const head =
        `${aggregation.total} campaign${aggregation.total === 1 ? '' : 's'} matched${filterLabels.length ? ` (filters: ${filterLabels.join('; ')})` : ''}; ` +
        `counted by ${label.toLowerCase()}, ${shown}${groupBy === 'value_prop' ? ' (a campaign counts under each of its value props, so shares can add up to more than 100%)' : ''}:`;
      const lines = aggregation.rows.map(
        (r, i) => `${i + 1}. ${r.value ?? NONE}: ${r.campaigns} (${share(r.campaigns)})`,
      );
      return {
        content: [
          head,
          ...lines,
          ...notes,
          'The user sees this as a table: summarise the main point instead of listing every row.',
        ].join('\n'),
        summary: `${aggregation.total} campaigns by ${label.toLowerCase()}`,
        blocksKey: 'aggregation',
        blocks: [
          {
            type: 'table',
            columns: [label, 'Campaigns', 'Share'],
            rows: aggregation.rows.map((r) => [r.value ?? NONE, String(r.campaigns), share(r.campaigns)]),
            caption: `${aggregation.total} campaigns${filterLabels.length ? ` · ${filterLabels.join(' · ')}` : ''}${rows.length < aggregation.groups ? ` · top ${rows.length} of ${aggregation.groups}` : ''}`,
          },
        ],
        data: { aggregation },
      };
    },
  });
}
