import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import type { ThreadState } from '../../contract/thread-state.js';
import { competitorRow } from '../../data/rows.js';
import { defineTool, ToolError, type OfferContext } from '../../contract/tool.js';
import type { CompetitorDirectory, CompetitorEntry } from './directory.js';
import { competitorContext, formatChars, namesNotInIds, renderCompetitorCard } from './render.js';
import { fetchedCompetitors, storeFetchedCompetitor } from './state.js';

export const LOOKUP_COMPETITOR = 'lookup_competitor';

/** The declared input; each step narrows `competitor_id` to the ids not yet fetched (inputFor). */
const input = z.object({
  competitor_id: z.string().trim().toLowerCase().min(1).max(100).describe('Id of the competitor that was mentioned.'),
});

export interface LookupToolOptions {
  directory: CompetitorDirectory;
  timeoutMs: number;
}

export function createLookupCompetitorTool({ directory, timeoutMs }: LookupToolOptions) {
  // Two calls for one id in the same step would otherwise both fetch and both report success.
  const inFlight = new WeakMap<ThreadState, Set<string>>();
  // The narrowed schema for a list of ids, built once: most turns offer the same list (nothing
  // fetched yet), and building it (a zod enum, then its JSON Schema in the registry) was a tenth
  // of a turn's CPU on the embedded database. The same object also lets the registry reuse its spec.
  const narrowed = new LRUCache<string, z.ZodObject>({ max: 256 });

  /** Competitors of the tenant not fetched in this thread; none when the list cannot be loaded. */
  async function unfetched(ctx: OfferContext): Promise<CompetitorEntry[]> {
    let all: CompetitorEntry[];
    try {
      all = await directory.list(ctx);
    } catch (err) {
      ctx.log.warn({ err, tool: LOOKUP_COMPETITOR }, 'competitor ids unavailable; lookup_competitor not offered');
      return [];
    }
    const fetched = fetchedCompetitors(ctx.state);
    return all.filter((c) => !Object.hasOwn(fetched, c.key));
  }

  return defineTool({
    name: LOOKUP_COMPETITOR,
    title: 'Looking up a competitor',
    // Competitors' profiles are their own words (issue 43): they taint the turn.
    taints: true,
    // Sent on every step while offered: short on purpose (bench/tokens/competitors.ts).
    description: 'Load a mentioned competitor’s background before answering.',
    input,
    timeoutMs,
    async inputFor(ctx) {
      const remaining = await unfetched(ctx);
      const [first, ...rest] = remaining.map((c) => c.key);
      if (first === undefined) return input;
      const ids: [string, ...string[]] = [first, ...rest];
      const names = namesNotInIds(remaining);
      const key = JSON.stringify([ids, names]);
      let schema = narrowed.get(key);
      if (!schema) {
        const id = z.enum(ids, { error: `Unknown or already fetched competitor id. Use one of: ${ids.join(', ')}.` });
        schema = z.object({ competitor_id: names ? id.describe(names) : id });
        narrowed.set(key, schema);
      }
      return schema;
    },
    offer: async (ctx) => (await unfetched(ctx)).length > 0,
    context: (ctx) => competitorContext(fetchedCompetitors(ctx.state)),

    async run({ competitor_id: key }, ctx) {
      const already = fetchedCompetitors(ctx.state)[key];
      if (already) throw new ToolError(`The background for ${already.name} is already in your context; use it.`);
      const known = (await directory.list(ctx)).find((c) => c.key === key);
      if (!known) {
        const ids = (await unfetched(ctx)).map((c) => c.key);
        throw new ToolError(
          `Unknown competitor id "${key}". ${ids.length ? `Use one of: ${ids.join(', ')}.` : 'No other competitors are configured.'}`,
        );
      }
      const pending = inFlight.get(ctx.state) ?? new Set<string>();
      inFlight.set(ctx.state, pending);
      if (pending.has(key))
        throw new ToolError(`The background for ${known.name} is already being added; do not request it twice.`);
      pending.add(key);

      const started = performance.now();
      let rows;
      try {
        rows = await ctx.data.call('get_competitor', { key }, competitorRow);
      } finally {
        pending.delete(key);
      }
      const latencyMs = Math.round(performance.now() - started);
      const row = rows[0];
      if (!row) {
        // Deleted since the ids were loaded: reload them so the next step's enum is right.
        directory.forget(ctx.tenant.id);
        ctx.log.warn({ competitor: key, latencyMs }, `Competitor '${key}' was removed after its id was loaded`);
        return {
          content: `No background for ${known.name}: it was removed from the competitor list. Tell the user it is no longer available.`,
          summary: `${known.name} is no longer available`,
          blocks: [
            {
              type: 'context',
              items: [`${known.name} is no longer in the competitor list, so there is no background to show.`],
            },
          ],
          blocksKey: `${LOOKUP_COMPETITOR}:${key}`,
        };
      }

      const chars = row.full_description.length;
      ctx.log.debug(
        { competitor: key, latencyMs, chars },
        `Fetched competitor '${key}' in ${latencyMs}ms (${formatChars(chars)} chars)`,
      );
      storeFetchedCompetitor(ctx.state, key, {
        name: row.display_name,
        description: row.full_description,
        fetchedAt: ctx.now().toISOString(),
      });
      const stored = fetchedCompetitors(ctx.state);
      return {
        content: `Added competitor background for ${row.display_name}`,
        blocks: renderCompetitorCard(
          stored[key] ?? { name: row.display_name, description: row.full_description, fetchedAt: '' },
        ),
        // One card per competitor: two lookups in one turn show both.
        blocksKey: `${LOOKUP_COMPETITOR}:${key}`,
        data: { competitorBackgrounds: Object.keys(stored) },
      };
    },
  });
}
