/**
 * Prompt tokens of a thread's first turn (o200k tokenizer, as `countTokens` counts them): system
 * prompt, user message and the tools array exactly as sent to the LLM (captured by the loopback
 * fake), counted as JSON text (the upper bound) and as OpenAI renders tools into the prompt
 * (openai-render.ts), for five typical questions per demo tenant. Part of bench/tokens.ts.
 */
import { countMessageTokens, countTokens } from '../../src/contract/tokens.js';
import type { ChatMessage } from '../../src/contract/llm.js';
import { createSwitchboard } from '../../src/wiring/app.js';
import { parseConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/telemetry/logger.js';
import { startFakeOpenAI } from '../../test/fakes/openai-server.js';
import { calibration, renderedToolTokens } from './openai-render.js';

export const QUESTIONS: Record<string, string[]> = {
  default: [
    'What are the offers from recent Cash Back, Premium campaigns?',
    'How does Norlys position itself against us?',
    'Which companies ran the most email campaigns last year?',
    'What are the latest React features?',
    'Make an SVG banner for our spring campaign.',
  ],
  harbourside: [
    'What is your cancellation policy?',
    'Are you open on Saturday?',
    'Is there a free slot for a remedial massage tomorrow?',
    'When is my next appointment? My number is 0412 345 678.',
    'Do you take health fund claims?',
  ],
};

export interface FirstTurn {
  messages: number;
  tools: number;
  rendered: number;
  names: string[];
  perTool: string;
}

async function openBench() {
  const llm = await startFakeOpenAI();
  const config = parseConfig({
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: llm.url,
    PGLITE_MEMORY: '1',
    EMBEDDING_MODEL: 'text-embedding-3-small',
    IMAGE_MODEL: 'gpt-image-1',
    TAVILY_API_KEY: 'tvly-bench',
    LOG_LEVEL: 'silent',
  });
  const sb = await createSwitchboard(config, silentLogger());
  let n = 0;
  /** The prompt of the first LLM request of a new thread's first turn, as `workspaceId` (HTTP). */
  const firstTurn = async (text: string, workspaceId = 'default'): Promise<FirstTurn> => {
    llm.script({ text: 'ok' });
    const thread = `bench-${++n}`;
    for await (const _ of sb.agent.handle({
      platform: 'http',
      workspaceId,
      channelId: 'api',
      threadId: thread,
      messageId: thread,
      userId: 'U1',
      role: 'member' as const,
      isDirect: true,
      text,
    })) {
      // drain
    }
    const body = llm.lastRequest('/chat/completions')!.body;
    const tools = (body.tools ?? []) as {
      function: { name: string; description?: string; parameters?: Record<string, unknown> };
    }[];
    return {
      messages: countMessageTokens(body.messages as ChatMessage[]),
      tools: countTokens(JSON.stringify(tools)),
      rendered: renderedToolTokens(tools.map((t) => t.function)),
      names: tools.map((t) => t.function.name),
      perTool: tools.map((t) => `${t.function.name} ${countTokens(JSON.stringify(t))}`).join(', '),
    };
  };
  return {
    firstTurn,
    close: async () => {
      await sb.close();
      await llm.close();
    },
  };
}

/** The first turn of the marketing team's campaign question (issue 28's target: ≤ 1,500 with the tools as JSON). */
export async function campaignQuestionTokens(): Promise<FirstTurn> {
  const bench = await openBench();
  try {
    return await bench.firstTurn(QUESTIONS.default![0]!);
  } finally {
    await bench.close();
  }
}

export async function firstTurnFigures(): Promise<string[]> {
  const bench = await openBench();
  const first = await bench.firstTurn(QUESTIONS.default![0]!);
  const total = first.messages + first.tools;
  const lines = [
    `first turn of a campaign question on the default demo tenant, ${first.names.length} tools offered: ${total} prompt tokens with the tools as JSON text (messages ${first.messages} + tools ${first.tools}) (target ≤ 1,500) ${total <= 1500 ? 'OK' : 'MISSED'}`,
    `  as OpenAI renders the tools into the prompt: ${first.messages + first.rendered} prompt tokens (tools ${first.rendered}); renderer check: ${calibration()}`,
    `  per tool (JSON): ${first.perTool}`,
    '',
    'first-turn prompt tokens (messages + tools as JSON) of typical questions, per demo tenant:',
  ];
  for (const [tenant, questions] of Object.entries(QUESTIONS)) {
    for (const q of questions) {
      const t = await bench.firstTurn(q, tenant);
      lines.push(
        `  ${tenant.padEnd(11)} ${String(t.messages + t.tools).padStart(5)}  (messages ${t.messages}, ${t.names.length} tools ${t.tools})  ${q}`,
      );
    }
  }
  await bench.close();
  return lines;
}
