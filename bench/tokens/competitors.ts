/**
 * Competitor tokens the model receives: the lazy lookup tool (issue 5) against the old way,
 * which preloaded every competitor description into every prompt and never offered the tool.
 *
 *   npx tsx bench/tokens/competitors.ts
 *
 * One five-turn team conversation about a sales call, 12 competitors configured, one of
 * them (Norlys) mentioned. Both runs go through the real agent, registry, thread state and
 * database (in-memory PGlite); only the LLM is an in-process script. Every request the
 * model would have received is recorded, and its competitor-related parts are counted with
 * `countTokens` (o200k): the lookup_competitor definition (name, description, enum), the
 * backgrounds in the system context, and the tool call and its result. Target ratio ≤ 0.1.
 *
 * The definition is counted as the model receives it from OpenAI's API (rendered as a
 * TypeScript declaration; see openai-render.ts, checked against OpenAI's own counts) and,
 * as an upper bound, as its JSON text.
 */
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { ChatMessage, Completion, CompletionRequest, LlmClient, ToolSpec } from '../../src/contract/llm.js';
import { countTokens } from '../../src/contract/tokens.js';
import { createSwitchboard } from '../../src/wiring/app.js';
import { parseConfig } from '../../src/config/index.js';
import { demoCompetitors } from '../../src/data/demo/competitors.js';
import { openDataPort, type AdminDataPort } from '../../src/data/index.js';
import { importRows } from '../../src/data/import/run.js';
import { createLogger } from '../../src/telemetry/logger.js';
import { createCompetitorTools, LOOKUP_COMPETITOR } from '../../src/tools/competitors/index.js';
import { competitorContext, CONTEXT_HEADING } from '../../src/tools/competitors/render.js';
import { defineTool, type AnyTool } from '../../src/contract/tool.js';
import { fmt } from '../lib/doc-blocks.js';
import { renderedDefinitionTokens } from './openai-render.js';

const COMPETITORS = 12;
const MENTIONED = { key: 'norlys', name: 'Norlys' };

const TURNS = [
  'I have a call with a household customer in Aarhus in ten minutes. What should I open with?',
  'They just said they are with Norlys and that Norlys is cheaper. How do I handle that?',
  'They also asked whether our green product is really green. What do I say?',
  'Draft a short follow-up email I can send after the call.',
  'Which questions should I ask on the next call?',
];
const ANSWER =
  'Keep it short: open with what they pay over a whole year, ask what matters most to them, and offer one concrete ' +
  'difference rather than a list. Close by agreeing on a next step and a time.';

/** Answers every request at once; calls lookup_competitor when the user names the competitor and the tool is offered. */
function scriptedLlm(requests: CompletionRequest[]): LlmClient {
  let calls = 0;
  return {
    model: 'scripted',
    async complete(req) {
      requests.push(req);
      const last = req.messages.at(-1);
      const offered = (req.tools ?? []).some((t) => t.type === 'function' && t.function.name === LOOKUP_COMPETITOR);
      const mentions =
        last?.role === 'user' && typeof last.content === 'string' && last.content.includes(MENTIONED.name);
      if (offered && mentions) {
        calls++;
        return {
          content: '',
          toolCalls: [
            {
              id: `call_${calls}`,
              name: LOOKUP_COMPETITOR,
              arguments: JSON.stringify({ competitor_id: MENTIONED.key }),
            },
          ],
          finishReason: 'tool_calls',
        } satisfies Completion;
      }
      req.onText?.(ANSWER);
      return { content: ANSWER, toolCalls: [], finishReason: 'stop' };
    },
    async embed() {
      return [];
    },
  };
}

/** The old way: every description preloaded into the context of every step; the tool never offered. */
function preloadAllTool(descriptions: Record<string, { name: string; description: string }>): AnyTool {
  const all = Object.fromEntries(Object.entries(descriptions).map(([k, v]) => [k, { ...v, fetchedAt: '' }]));
  return defineTool({
    name: LOOKUP_COMPETITOR,
    title: 'Looking up a competitor',
    description: 'Old way: offered only when no backgrounds are preloaded, so never.',
    input: z.object({ competitor_id: z.string() }),
    offer: () => false,
    context: () => competitorContext(all),
    async run() {
      return { content: '' };
    },
  });
}

interface Tally {
  requests: number;
  /** As OpenAI renders it into the prompt. */
  definition: number;
  /** As JSON text: the upper bound. */
  definitionJson: number;
  context: number;
  exchange: number;
  total: number;
}

/** The competitor-related tokens of each recorded request. */
function tally(requests: CompletionRequest[]): Tally {
  const t: Tally = { requests: requests.length, definition: 0, definitionJson: 0, context: 0, exchange: 0, total: 0 };
  for (const req of requests) {
    for (const spec of req.tools ?? []) {
      if (!isLookup(spec)) continue;
      t.definition += renderedDefinitionTokens(spec.function);
      // The whole spec as sent, as bench/tokens/campaigns.ts counts schemas.
      t.definitionJson += countTokens(JSON.stringify(spec));
    }
    const lookupCalls = new Set<string>();
    for (const m of req.messages) {
      if (m.role === 'system' && typeof m.content === 'string' && m.content.startsWith(CONTEXT_HEADING))
        t.context += countTokens(m.content);
      if (m.role === 'assistant') {
        for (const call of m.tool_calls ?? []) {
          if (call.type === 'function' && call.function.name === LOOKUP_COMPETITOR) {
            lookupCalls.add(call.id);
            t.exchange += countTokens(call.function.name) + countTokens(call.function.arguments);
          }
        }
      }
      if (m.role === 'tool' && lookupCalls.has(m.tool_call_id)) t.exchange += countTokens(text(m));
    }
  }
  t.total = t.definition + t.context + t.exchange;
  return t;
}

const isLookup = (spec: ToolSpec): spec is Extract<ToolSpec, { type: 'function' }> =>
  spec.type === 'function' && spec.function.name === LOOKUP_COMPETITOR;
const text = (m: ChatMessage): string => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''));

interface Bench {
  data: AdminDataPort;
  rows: { key: string; display_name: string; full_description: string }[];
}

/** One database for every run: the default tenant with the first 12 demo competitors. */
async function openBench(): Promise<Bench> {
  const config = parseConfig({ PGLITE_MEMORY: '1', EMBEDDING_DIMENSIONS: '8', LOG_LEVEL: 'silent' });
  const data = await openDataPort(config, createLogger('silent'), { seedDemo: false });
  const rows = demoCompetitors()
    .slice(0, COMPETITORS)
    .map(({ campaign_key: _campaign, ...row }) => row);
  if (!rows.some((r) => r.key === MENTIONED.key))
    throw new Error(`${MENTIONED.key} is not among the first ${COMPETITORS}`);
  await importRows(data, 'competitors', (await data.defaultTenant()).id, rows);
  return { data, rows };
}

async function runConversation(
  bench: Bench,
  mode: 'lazy' | 'preload',
  turns: readonly string[],
  threadId: string,
): Promise<{ tally: Tally; logLines: string[]; perRequest: number[] }> {
  const logLines: string[] = [];
  const log = createLogger('info', {
    write: (chunk: string) => void logLines.push((JSON.parse(chunk) as { msg: string }).msg),
  });
  const config = parseConfig({
    OPENAI_API_KEY: 'sk-bench',
    PGLITE_MEMORY: '1',
    EMBEDDING_DIMENSIONS: '8',
    LOG_LEVEL: 'info',
  });
  const requests: CompletionRequest[] = [];
  const tools =
    mode === 'lazy'
      ? createCompetitorTools(config).tools
      : [
          preloadAllTool(
            Object.fromEntries(
              bench.rows.map((r) => [r.key, { name: r.display_name, description: r.full_description }]),
            ),
          ),
        ];
  const sb = await createSwitchboard(config, log, { tools, data: bench.data, llm: scriptedLlm(requests) });
  try {
    for (const [i, turn] of turns.entries()) {
      const message = {
        platform: 'http' as const,
        workspaceId: 'default',
        channelId: 'bench',
        threadId,
        messageId: `${threadId}-${i}`,
        userId: 'u',
        role: 'member' as const,
        isDirect: true,
        text: turn,
      };
      for await (const event of sb.agent.handle(message)) {
        if (event.type === 'error') throw new Error(`turn ${i + 1} failed: ${event.message}`);
      }
    }
  } finally {
    await sb.close();
  }
  return { tally: tally(requests), logLines, perRequest: requests.map((r) => tally([r]).total) };
}

/** The lazy tool's competitor tokens against preloading, one conversation each (and the lazy one with the mention in turn 1). */
export async function competitorTokenCounts() {
  const bench = await openBench();
  try {
    const lazy = await runConversation(bench, 'lazy', TURNS, 'lazy');
    const preload = await runConversation(bench, 'preload', TURNS, 'preload');
    // The same conversation with the competitor named in the first turn: the background rides along longest.
    const early = await runConversation(bench, 'lazy', [TURNS[1]!, TURNS[0]!, ...TURNS.slice(2)], 'early');
    return { lazy, preload, early };
  } finally {
    await bench.data.close();
  }
}
type Counts = Awaited<ReturnType<typeof competitorTokenCounts>>;

const TARGET_RATIO = 0.1;
const ratios = ({ lazy, preload, early }: Counts) => {
  const jsonTotal = lazy.tally.total - lazy.tally.definition + lazy.tally.definitionJson;
  return {
    ratio: lazy.tally.total / preload.tally.total,
    early: early.tally.total / preload.tally.total,
    jsonTotal,
    json: jsonTotal / preload.tally.total,
    context: lazy.tally.context / preload.tally.total,
    definition: lazy.tally.definition / preload.tally.total,
    exchange: lazy.tally.exchange / preload.tally.total,
  };
};

/** The figures, one line each: tokens with the lazy tool, with preloading, the ratio and the tool's log lines. */
export function competitorTokenLines(counts: Counts): string[] {
  const { lazy, preload, early } = counts;
  const r = ratios(counts);
  const latency = lazy.logLines.filter((l) => /^Fetched \d+ competitor IDs|^Fetched competitor '/.test(l));
  return [
    `Competitor tokens received by the model, ${TURNS.length} turns, ${COMPETITORS} competitors configured, 1 mentioned (turn 2):`,
    `  lazy tool:   ${fmt(lazy.tally.total)} tokens over ${lazy.tally.requests} requests ` +
      `(definition ${fmt(lazy.tally.definition)} as OpenAI renders it, background in context ${fmt(lazy.tally.context)}, call + result ${fmt(lazy.tally.exchange)}); per request ${lazy.perRequest.map(fmt).join(' / ')}`,
    `  preload all: ${fmt(preload.tally.total)} tokens over ${preload.tally.requests} requests (every description in every prompt); per request ${preload.perRequest.map(fmt).join(' / ')}`,
    `  ratio:       ${r.ratio.toFixed(3)} (target ≤ ${TARGET_RATIO}) ${r.ratio <= TARGET_RATIO ? 'OK' : 'MISSED'}: ` +
      `the background in later steps ${r.context.toFixed(3)}, the tool definition ${r.definition.toFixed(3)}, call + result ${r.exchange.toFixed(3)}`,
    `  upper bound, the definition counted as JSON text (${fmt(lazy.tally.definitionJson)}): ${fmt(r.jsonTotal)} tokens, ratio ${r.json.toFixed(3)}`,
    `  mentioned in turn 1 instead: ${fmt(early.tally.total)} tokens, ratio ${r.early.toFixed(3)}`,
    `Tool latency log lines (in-memory PGlite): ${latency.length ? latency.map((l) => `"${l}"`).join(', ') : '(none)'}`,
  ];
}

/** docs/competitors.md: the same figures as prose (the bench:tokens-competitors block). */
export function competitorTokenProse(counts: Counts): string {
  const { lazy, preload } = counts;
  const r = ratios(counts);
  const perRequest = (n: number) => fmt(Math.round(n / lazy.tally.requests));
  return (
    `The model gets ${fmt(lazy.tally.total)} competitor tokens with the tool, against ${fmt(preload.tally.total)} when ` +
    `every description is preloaded into every prompt: a ratio of ${r.ratio.toFixed(3)} (target ≤ ${TARGET_RATIO}: ` +
    `${r.ratio <= TARGET_RATIO ? 'met' : 'missed'}). The fetched background in later steps is ${r.context.toFixed(3)} of that, ` +
    `the tool definition ${r.definition.toFixed(3)} (${perRequest(lazy.tally.definition)} tokens a request on average, as ` +
    `OpenAI renders tools into the prompt; ${perRequest(lazy.tally.definitionJson)} as JSON text, which would make the ratio ` +
    `${r.json.toFixed(3)}) and the call with its one-line result ${r.exchange.toFixed(3)}. With the mention in turn 1 the ratio is ` +
    `${r.early.toFixed(3)}: the background then rides along one step more.`
  );
}

/** The figures, one line each (what `npx tsx bench/tokens/competitors.ts` prints). */
export async function competitorTokenFigures(): Promise<string[]> {
  return competitorTokenLines(await competitorTokenCounts());
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  competitorTokenFigures()
    .then((lines) => console.log(lines.join('\n')))
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
}
