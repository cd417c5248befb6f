/**
 * Prompt-token figures (o200k tokenizer, as `countTokens` counts them):
 * 1. a first turn with every tool a first turn is offered (target ≤ 2,000): system prompt,
 *    user message and the tools array exactly as sent to the LLM (captured by the loopback
 *    fake), counted both as JSON text (the upper bound) and as OpenAI renders tools into the
 *    prompt (tokens/openai-render.ts, checked against OpenAI's recorded counts);
 * 2. campaign results (bench/tokens/campaigns.ts, target ≤ 1,500 for 20 hits);
 * 3. competitor tokens with the lazy tool versus preloading (bench/tokens/competitors.ts,
 *    target ratio ≤ 0.1).
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

async function firstTurnFigures(): Promise<string[]> {
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
  llm.script({ text: 'ok' });
  for await (const _ of sb.agent.handle({
    platform: 'slack',
    workspaceId: 'default',
    channelId: 'C1',
    threadId: '1',
    messageId: '1',
    userId: 'U1',
    role: 'member' as const,
    isDirect: false,
    text: 'What are the offers from recent Cash Back, Premium campaigns?',
  })) {
    // drain
  }
  const body = llm.lastRequest('/chat/completions')!.body;
  const messages = body.messages as ChatMessage[];
  const tools = (body.tools ?? []) as {
    function: { name: string; description?: string; parameters?: Record<string, unknown> };
  }[];
  const messageTokens = countMessageTokens(messages);
  const toolTokens = countTokens(JSON.stringify(tools));
  const rendered = renderedToolTokens(tools.map((t) => t.function));
  const perTool = tools.map((t) => `${t.function.name} ${countTokens(JSON.stringify(t))}`).join(', ');
  await sb.close();
  await llm.close();
  return [
    `first turn, all ${tools.length} tools offered: ${messageTokens + toolTokens} prompt tokens with the tools as JSON text (messages ${messageTokens} + tools ${toolTokens}) (target ≤ 2,000) ${messageTokens + toolTokens <= 2000 ? 'OK' : 'MISSED'}`,
    `  as OpenAI renders the tools into the prompt: ${messageTokens + rendered} prompt tokens (tools ${rendered}); renderer check: ${calibration()}`,
    `  per tool (JSON): ${perTool}`,
  ];
}

for (const section of [firstTurnFigures, campaignTokenFigures, competitorTokenFigures]) {
  for (const line of await section()) console.log(line);
  console.log('');
}
