/**
 * Switchboard's side of the core benchmarks: the whole agent core (tenant lookup, thread lock,
 * state load and save through keyv, history trimmed to its token budget, argument validation,
 * tool dispatch, every turn event) over a zero-latency scripted LLM that asks for three
 * parallel tool calls, then answers.
 */
import { z } from 'zod';
import { createSwitchboard, type Switchboard } from '../../src/wiring/app.js';
import { parseConfig } from '../../src/config/index.js';
import type { Completion, CompletionRequest, LlmClient } from '../../src/contract/llm.js';
import { defineTool } from '../../src/contract/tool.js';
import { silentLogger } from '../../src/telemetry/logger.js';

export const TOOL_NAMES = ['alpha', 'beta', 'gamma'] as const;

const echo = (name: string) =>
  defineTool({
    name,
    title: name,
    description: `Echo tool ${name}`,
    input: z.object({ q: z.string().min(1), limit: z.number().int().optional() }),
    async run({ q }) {
      return { content: `${name}: ${q}`, blocks: [{ type: 'markdown', text: q }] };
    },
  });

/** Answers step 1 with three parallel tool calls and step 2 with text, instantly. */
class ScriptedLlm implements LlmClient {
  readonly model = 'scripted';
  async complete(req: CompletionRequest): Promise<Completion> {
    const last = req.messages.at(-1);
    if (last?.role === 'tool') {
      req.onText?.('Done.');
      return {
        content: 'Done.',
        toolCalls: [],
        finishReason: 'stop',
        usage: { promptTokens: 100, completionTokens: 2 },
      };
    }
    return {
      content: '',
      toolCalls: TOOL_NAMES.map((name, i) => ({
        id: `c${i}`,
        name,
        arguments: JSON.stringify({ q: `query ${i}`, limit: null }),
      })),
      finishReason: 'tool_calls',
      usage: { promptTokens: 100, completionTokens: 20 },
    };
  }
  async embed(): Promise<number[][]> {
    return [];
  }
}

export interface SwitchboardBench {
  sb: Switchboard;
  /** One turn; true when it ended with `done` (a refused or failed turn would flatter the figures). */
  turn(i: number): Promise<boolean>;
}

export async function switchboardBench(): Promise<SwitchboardBench> {
  // The embedded database by default; BENCH_DATABASE_URL (migrated) for the production shape, BENCH_REDIS_URL for shared state.
  const config = parseConfig({
    OPENAI_API_KEY: 'sk-bench',
    LOG_LEVEL: 'silent',
    ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : { PGLITE_MEMORY: '1' }),
    ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL } : {}),
  });
  const sb = await createSwitchboard(config, silentLogger(), { tools: TOOL_NAMES.map(echo), llm: new ScriptedLlm() });
  return {
    sb,
    async turn(i) {
      let done = false;
      // 1,000 people in 50 threads, as in a workspace: one person's thousands of turns in seconds would be a flood.
      for await (const event of sb.agent.handle({
        platform: 'http',
        workspaceId: 'default',
        channelId: 'bench',
        threadId: `t${i % 50}`,
        messageId: `m${i}`,
        userId: `u${i % 1_000}`,
        role: 'member',
        isDirect: true,
        text: `question ${i}`,
      })) {
        if (event.type === 'done') done = true;
      }
      return done;
    },
  };
}
