import { z } from 'zod';
import type { AnyTool, OfferContext } from '../contract/tool.js';
import type { ThreadState } from '../contract/thread-state.js';

export const FIND_TOOLS = 'find_tools';
/** The thread state key of the MCP tools `find_tools` offered in a thread. */
const STATE_KEY = 'mcp';
/** How many tools one search offers, and how many a thread keeps offered at most (the newest stay). */
const MATCHES_MAX = 8;
const FOUND_MAX = 16;

const foundState = z.object({ found: z.array(z.string()).max(FOUND_MAX) });

/** The MCP tools `find_tools` found in this thread: offered from the step after the search on. */
export function foundTools(state: ThreadState): ReadonlySet<string> {
  const parsed = foundState.safeParse(state.tools[STATE_KEY]);
  return new Set(parsed.success ? parsed.data.found : []);
}

function rememberFound(state: ThreadState, names: readonly string[]): void {
  const kept = [...foundTools(state)].filter((n) => !names.includes(n));
  state.tools[STATE_KEY] = { found: [...kept, ...names].slice(-FOUND_MAX) };
}

/** Lower-cased words of a query or a tool's name and description (`jira__create_issue` → jira, create, issue). */
function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1 || /\d/.test(w))
    .slice(0, 200);
}

/** The tools that best match `query`: a point per query word found in the name (two) or description (one). */
export function searchTools(tools: readonly AnyTool[], query: string, max = MATCHES_MAX): AnyTool[] {
  const wanted = [...new Set(words(query))].slice(0, 20);
  if (wanted.length === 0) return [];
  const scored = tools.map((tool) => {
    const name = new Set(words(tool.name));
    const description = new Set(words(`${tool.title} ${tool.description}`));
    let score = 0;
    for (const w of wanted) {
      if (name.has(w)) score += 2;
      else if ([...name].some((n) => n.startsWith(w) || w.startsWith(n))) score += 1.5;
      if (description.has(w)) score += 1;
    }
    return { tool, score };
  });
  return scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name))
    .slice(0, max)
    .map((s) => s.tool);
}

/**
 * `find_tools`, offered instead of a tenant's MCP tools when it has more than MCP_INLINE_TOOLS of
 * them on: it searches their names and descriptions, and the matches are offered from the next
 * step on (the thread remembers them), the way `lookup_competitor` offers only what is useful.
 */
export function createFindTools(all: (ctx: OfferContext) => Promise<readonly AnyTool[]>): AnyTool {
  return {
    name: FIND_TOOLS,
    title: 'Finding tools',
    // Sent on every step while offered: short on purpose (bench/mcp.ts counts the first-turn prompt).
    description: 'Find more tools by task; found ones are callable next step.',
    input: z.object({
      query: z.string().trim().min(1).max(200),
    }),
    effect: 'read',
    async run({ query }: { query: string }, ctx) {
      const matches = searchTools(await all(ctx), query);
      if (matches.length === 0)
        return { content: `No connected tool matches “${query}”. Try other words.`, summary: 'no match' };
      rememberFound(
        ctx.state,
        matches.map((t) => t.name),
      );
      const lines = matches.map((t) => `- ${t.name}: ${t.description}`);
      return {
        content: `These tools are now available:\n${lines.join('\n')}`,
        summary: `${matches.length} tool${matches.length === 1 ? '' : 's'} found`,
      };
    },
  };
}
