import type { AgentExtension } from '../../src/contract/extension.js';
import type { IncomingMessage, TurnEvent } from '../../src/contract/turn.js';
import type { PlatformAdapter } from '../../src/adapters/platform.js';
import { createSwitchboard, type Switchboard } from '../../src/wiring/app.js';
import { parseConfig, type Config } from '../../src/config/index.js';
import type { DataPort } from '../../src/contract/data.js';
import { createLogger, type Logger } from '../../src/telemetry/logger.js';
import type { AnyTool } from '../../src/contract/tool.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { HARNESS_DIMENSIONS, templateEnv } from './template-env.js';

export interface Harness {
  sb: Switchboard;
  llm: FakeOpenAI;
  config: Config;
  logs: LogCapture;
  close(): Promise<void>;
}

export interface LogCapture {
  lines: Record<string, unknown>[];
  text(): string;
}

export function captureLogs(level = 'debug'): { log: Logger; logs: LogCapture } {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const log = createLogger(level, {
    write(chunk: string) {
      raw.push(chunk);
      lines.push(JSON.parse(chunk) as Record<string, unknown>);
    },
  });
  return { log, logs: { lines, text: () => raw.join('') } };
}

/**
 * A whole Switchboard on loopback: the fake OpenAI server as the LLM peer, an in-memory
 * PGlite database (or a given port), in-memory or Redis state.
 */
export async function startHarness(
  opts: {
    env?: Record<string, string>;
    tools?: AnyTool[];
    extensions?: AgentExtension[];
    now?: () => Date;
    data?: DataPort;
    llm?: FakeOpenAI;
    /** The level the captured log lines are written at (default debug; errors carry stacks only at debug). */
    logLevel?: string;
  } = {},
): Promise<Harness> {
  const llm = opts.llm ?? (await startFakeOpenAI());
  const config = parseConfig({
    OPENAI_API_KEY: 'sk-test-harness-key',
    OPENAI_BASE_URL: llm.url,
    OPENAI_MODEL: 'gpt-test',
    OPENAI_MAX_RETRIES: '0',
    OPENAI_TIMEOUT_MS: '5000',
    PGLITE_MEMORY: '1',
    EMBEDDING_DIMENSIONS: String(HARNESS_DIMENSIONS),
    ...templateEnv(HARNESS_DIMENSIONS),
    LOG_LEVEL: 'info',
    // Suites drive many turns a minute as one test user; test/security sets the flood limit it tests.
    USER_MESSAGES_PER_MINUTE: '0',
    // Answers carry no 👍/👎 unless a suite tests them (test/feedback sets FEEDBACK=on).
    FEEDBACK: 'off',
    ...opts.env,
  });
  const { log, logs } = captureLogs(opts.logLevel);
  const sb = await createSwitchboard(config, log, {
    tools: opts.tools,
    extensions: opts.extensions,
    now: opts.now,
    data: opts.data,
  });
  return {
    sb,
    llm,
    config,
    logs,
    async close() {
      await sb.close();
      if (!opts.llm) await llm.close();
    },
  };
}

let counter = 0;
export function message(text: string, over: Partial<IncomingMessage> = {}): IncomingMessage {
  counter++;
  return {
    platform: 'http',
    workspaceId: 'default',
    channelId: 'api',
    threadId: 't-default',
    messageId: `m-${counter}`,
    userId: 'u-1',
    role: 'member',
    isDirect: true,
    text,
    ...over,
  };
}

export async function collect(events: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> {
  const out: TurnEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

export function replyOf(events: TurnEvent[]) {
  const reply = events.find((e): e is Extract<TurnEvent, { type: 'reply' }> => e.type === 'reply');
  return reply?.reply;
}

export function errorOf(events: TurnEvent[]) {
  return events.find((e): e is Extract<TurnEvent, { type: 'error' }> => e.type === 'error');
}

/** The messages of one recorded chat request, as the model received them. */
export function sentMessages(
  body: Record<string, unknown>,
): { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }[] {
  return body.messages as { role: string; content?: unknown }[];
}

export function sentToolNames(body: Record<string, unknown>): string[] {
  const tools = (body.tools ?? []) as { function: { name: string } }[];
  return tools.map((t) => t.function.name);
}

/**
 * Starts a platform adapter and the inbox that runs its turns, as `serve()` does; the returned
 * function shuts them down in serve()'s order: intake off, the inbox drained, then the
 * connections closed.
 */
export async function runAdapter(sb: Switchboard, adapter: PlatformAdapter): Promise<() => Promise<void>> {
  await adapter.start();
  await sb.inbox.start();
  return async () => {
    await adapter.stop();
    await sb.inbox.stop(2_000);
    await adapter.close?.();
  };
}

/** The configuration `serve()` gets in tests: the fake LLM, an in-memory database, port 0 on loopback. */
export function serveConfig(llmUrl: string, env: Record<string, string> = {}): Config {
  return parseConfig({
    OPENAI_API_KEY: 'sk-serve-test',
    OPENAI_BASE_URL: llmUrl,
    OPENAI_MAX_RETRIES: '0',
    PGLITE_MEMORY: '1',
    EMBEDDING_DIMENSIONS: String(HARNESS_DIMENSIONS),
    ...templateEnv(HARNESS_DIMENSIONS),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    // As startHarness: no 👍/👎 under answers unless a suite tests them.
    FEEDBACK: 'off',
    ...env,
  });
}
