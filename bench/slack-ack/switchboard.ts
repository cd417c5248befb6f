/**
 * Switchboard for bench/slack-ack.ts, started as `npm start` starts it (src/wiring/serve.ts: Slack over
 * HTTP through Bolt's HTTPReceiver, each event recorded in the inbox before its ack; embedded
 * database; the Redis inbox with `redisUrl`), except that the LLM is in-process: it "thinks"
 * for `llmMs` on timers, using no CPU, then streams a short answer.
 */
import type { Completion, CompletionRequest, LlmClient } from '../../src/contract/llm.js';
import { parseConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/telemetry/logger.js';
import { serve } from '../../src/wiring/serve.js';
import { runUnderBench } from './child.js';

const args = JSON.parse(process.argv[2] ?? '{}') as {
  slackApiUrl: string;
  botToken: string;
  signingSecret: string;
  llmMs: number;
  redisUrl?: string;
  queue?: string;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class SleepyLlm implements LlmClient {
  readonly model = 'sleepy';
  async complete(req: CompletionRequest): Promise<Completion> {
    const words = ['All', ' systems', ' are', ' running', ' normally.'];
    await sleep(args.llmMs);
    for (const w of words) {
      req.onText?.(w);
      await sleep(10);
    }
    return {
      content: words.join(''),
      toolCalls: [],
      finishReason: 'stop',
      usage: { promptTokens: 50, completionTokens: 5 },
    };
  }
  async embed(): Promise<number[][]> {
    return [];
  }
}

await runUnderBench(async () => {
  const config = parseConfig({
    OPENAI_API_KEY: 'sk-bench',
    PGLITE_MEMORY: '1',
    LOG_LEVEL: 'silent',
    PORT: '0',
    HOST: '127.0.0.1',
    SLACK_BOT_TOKEN: args.botToken,
    SLACK_SIGNING_SECRET: args.signingSecret,
    SLACK_API_URL: args.slackApiUrl,
    ...(args.redisUrl ? { REDIS_URL: args.redisUrl, INBOX_QUEUE: args.queue ?? 'bench' } : {}),
  });
  return serve(config, silentLogger(), { llm: new SleepyLlm(), tools: [] });
});
