/**
 * The same scripted work through the OpenAI Agents SDK: `run()` with a scripted `Model`, three
 * zod-typed function tools, tracing off. What it does not do that Switchboard does: no tenant,
 * no thread lock, no persisted thread state or history, no token budget.
 */
import {
  Agent,
  run,
  setTracingDisabled,
  tool,
  Usage,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
} from '@openai/agents';
import { z } from 'zod';
import type { AppWork } from './app-work.js';
import { TOOL_NAMES } from './switchboard.js';

class ScriptedModel implements Model {
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const input = typeof request.input === 'string' ? [] : request.input;
    const last = input.at(-1) as { type?: string } | undefined;
    if (last?.type === 'function_call_result') {
      return {
        usage: new Usage({ requests: 1, inputTokens: 100, outputTokens: 2, totalTokens: 102 }),
        output: [
          {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'Done.' }],
          },
        ],
      };
    }
    return {
      usage: new Usage({ requests: 1, inputTokens: 100, outputTokens: 20, totalTokens: 120 }),
      output: TOOL_NAMES.map((name, i) => ({
        type: 'function_call' as const,
        callId: `c${i}`,
        name,
        arguments: JSON.stringify({ q: `query ${i}`, limit: null }),
        status: 'completed' as const,
      })),
    };
  }
  // eslint-disable-next-line require-yield -- the bench never streams
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not used');
  }
}

/** Bare, or with `work`: the thread's history loaded and saved and a ledger row written, as Switchboard does. */
export function agentsSdkBench(work?: AppWork): { turn(i: number): Promise<boolean> } {
  setTracingDisabled(true);
  const agent = new Agent({
    name: 'bench',
    instructions: 'Answer with the tools.',
    model: new ScriptedModel(),
    tools: TOOL_NAMES.map((name) =>
      tool({
        name,
        description: `Echo tool ${name}`,
        parameters: z.object({ q: z.string().min(1), limit: z.number().int().nullable() }),
        execute: async ({ q }) => `${name}: ${q}`,
      }),
    ),
  });
  return {
    async turn(i) {
      if (!work) {
        const result = await run(agent, `question ${i}`);
        return result.finalOutput === 'Done.';
      }
      const thread = `t${i % 50}`;
      const earlier = (await work.load(thread)) as AgentInputItem[][];
      const input = earlier.flat();
      const result = await run(agent, [...input, { role: 'user', content: `question ${i}` }]);
      await work.save(thread, [...earlier, result.history.slice(input.length)]);
      const usage = result.state.usage;
      await work.record(thread, {
        promptTokens: usage.inputTokens,
        completionTokens: usage.outputTokens,
        toolCalls: result.newItems.filter((item) => item.type === 'tool_call_item').length,
      });
      return result.finalOutput === 'Done.';
    },
  };
}
