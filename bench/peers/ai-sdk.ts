/**
 * The same scripted work through the Vercel AI SDK: `generateText` with its mock model (ai/test),
 * three zod-typed tools, up to five steps. What it does not do that Switchboard does: no tenant,
 * no thread lock, no persisted thread state or history, no token budget, no turn events.
 */
import { generateText, isStepCount, tool, type ModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import type { AppWork } from './app-work.js';
import { TOOL_NAMES } from './switchboard.js';

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

/** Bare, or with `work`: the thread's history loaded and saved and a ledger row written, as Switchboard does. */
export function aiSdkBench(work?: AppWork): { turn(i: number): Promise<boolean> } {
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      const last = options.prompt.at(-1);
      if (last?.role === 'tool') {
        return {
          content: [{ type: 'text', text: 'Done.' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: usage(100, 2),
          warnings: [],
        };
      }
      return {
        content: TOOL_NAMES.map((name, i) => ({
          type: 'tool-call' as const,
          toolCallId: `c${i}`,
          toolName: name,
          input: JSON.stringify({ q: `query ${i}`, limit: null }),
        })),
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: usage(100, 20),
        warnings: [],
      };
    },
  });
  const tools = Object.fromEntries(
    TOOL_NAMES.map((name) => [
      name,
      tool({
        description: `Echo tool ${name}`,
        inputSchema: z.object({ q: z.string().min(1), limit: z.number().int().nullable() }),
        execute: async ({ q }) => `${name}: ${q}`,
      }),
    ]),
  );
  return {
    async turn(i) {
      if (!work) {
        const result = await generateText({ model, tools, stopWhen: isStepCount(5), prompt: `question ${i}` });
        return result.text === 'Done.';
      }
      const thread = `t${i % 50}`;
      const earlier = (await work.load(thread)) as ModelMessage[][];
      const user: ModelMessage = { role: 'user', content: `question ${i}` };
      const result = await generateText({
        model,
        tools,
        stopWhen: isStepCount(5),
        messages: [...earlier.flat(), user],
      });
      // Every step's messages (the calls, their results, the answer): `response.messages` is the last step's only.
      await work.save(thread, [...earlier, [user, ...result.steps.flatMap((step) => step.response.messages)]]);
      const { inputTokens, outputTokens } = result.totalUsage;
      await work.record(thread, {
        promptTokens: inputTokens ?? 0,
        completionTokens: outputTokens ?? 0,
        toolCalls: result.steps.flatMap((s) => s.toolCalls).length,
      });
      return result.text === 'Done.';
    },
  };
}
