/**
 * Prompt-token figures (o200k tokenizer, as `countTokens` counts them):
 * 1. a first turn with every tool a first turn is offered (target ≤ 2,000): system prompt,
 *    user message and the tools array exactly as sent to the LLM (captured by the loopback
 *    fake), counted both as JSON text (the upper bound) and as OpenAI renders tools into the
 *    prompt (tokens/openai-render.ts, checked against OpenAI's recorded counts);
 * 2. campaign results (bench/tokens/campaigns.ts, target ≤ 1,500 for 20 hits);
 * 3. competitor tokens with the lazy tool versus preloading (bench/tokens/competitors.ts,
 *    target ratio ≤ 0.1);
 * 4. the first-turn prompt (messages + tools as JSON text) of five typical questions per demo
 *    tenant (`default`, the marketing team; `harbourside`, the clinic), target ≤ 1,500 for the
 *    marketing team's campaign question (issue 28).
 *
 *   npx tsx bench/tokens.ts
 */
import { countMessageTokens, countTokens } from '../src/contract/tokens.js';
import type { ChatMessage } from '../src/contract/llm.js';
import { createSwitchboard } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { silentLogger } from '../src/logger.js';
import { startFakeOpenAI } from '../test/fakes/openai-server.js';
import { campaignTokenFigures } from './tokens/campaigns.js';
import { competitorTokenFigures } from './tokens/competitors.js';
import { calibration, renderedToolTokens } from './tokens/openai-render.js';

const QUESTIONS: Record<string, string[]> = {
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

interface FirstTurn {
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

async function firstTurnFigures(): Promise<string[]> {
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

for (const section of [firstTurnFigures, campaignTokenFigures, competitorTokenFigures]) {
  for (const line of await section()) console.log(line);
  console.log('');
}
