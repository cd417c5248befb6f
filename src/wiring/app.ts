import { createAgent } from '../agent/agent.js';
import { sharedChannelSettings } from '../data/channel-settings.js';
import type { Switchboard } from '../adapters/switchboard.js';
import { type AgentExtension } from '../contract/extension.js';
import { createLlmClient } from '../provider/openai.js';
import { createModelPricing, defaultHistoryMaxTokens } from '../provider/pricing.js';
import type { LlmClient } from '../contract/llm.js';
import { createThreadLock } from '../agent/thread-lock.js';
import { createThreadStore } from '../agent/thread-store.js';
import { schemaDialect, type Config } from '../config/index.js';
import { createDataPort, isAdminPort } from '../data/index.js';
import { startTurnLogRetention } from '../data/turn-log.js';
import type { DataPort } from '../contract/data.js';
import type { Logger } from '../telemetry/logger.js';
import { createKv } from '../state/kv.js';
import { createInbox } from '../inbox/index.js';
import { instrumentAgent, instrumentInbox, instrumentLlm } from './instrument.js';
import { rateLimitsFromConfig } from '../security/rate-limits.js';
import { createGuard } from '../security/guard.js';
import { createToolSet } from '../tools/index.js';
import { createToolRegistry } from '../agent/registry.js';
import { createMcpRuntime, type McpRuntime } from '../mcp/index.js';
import type { AnyTool } from '../contract/tool.js';
import { currentTraceId } from '../telemetry/tracing.js';
import { modelTakesImages } from '../provider/model-inputs.js';
import { createUsageJournal, memoryJournalStore, redisJournalStore } from '../agent/usage-journal.js';

// Declared beside the adapters that run on it (src/adapters/switchboard.ts); named here for createSwitchboard's callers.
export type { Switchboard };

export interface SwitchboardOptions {
  /** Replaces the product tool set (tests register their own tools). */
  tools?: AnyTool[];
  extensions?: AgentExtension[];
  now?: () => Date;
  data?: DataPort;
  /** Replaces the HTTP LLM client (benchmarks use an in-process scripted one). */
  llm?: LlmClient;
  /** The MCP hub's timings (tests) and the OAuth provider of `oauth` servers. */
  mcp?: Parameters<typeof createMcpRuntime>[4];
}

/** The composition root: config → data → state → tools → agent. Adapters are started by the caller. */
export async function createSwitchboard(
  given: Config,
  log: Logger,
  opts: SwitchboardOptions = {},
): Promise<Switchboard> {
  const llm = instrumentLlm(opts.llm ?? createLlmClient(given, log), given.OPENAI_BASE_URL);
  const pricing = createModelPricing(given, log);
  // An explicit HISTORY_MAX_TOKENS wins; else it follows the model's context window (see pricing.ts).
  const contextWindow = pricing.contextWindow(llm.model);
  const config: Config = {
    ...given,
    HISTORY_MAX_TOKENS: given.HISTORY_MAX_TOKENS ?? defaultHistoryMaxTokens(contextWindow),
  };
  const data =
    opts.data ??
    (await createDataPort(config, log, { embed: (texts: string[], signal?: AbortSignal) => llm.embed(texts, signal) }));
  const kv = await createKv(config, log);
  const store = createThreadStore(kv, { ttlMs: config.THREAD_TTL_DAYS * 86_400_000, log });
  const lock = createThreadLock(kv, { log, leaseMs: config.INBOX_LEASE_MS });
  // One Redis connection for the state, the lock, the limits and the inbox's writes: they go
  // down and come back together (BullMQ's worker blocks, so it keeps its own, on the same policy).
  const inbox = instrumentInbox(await createInbox(config, log, kv.redis));
  const limits = rateLimitsFromConfig(config, log, kv.redis);
  const toolSet = opts.tools ? { tools: opts.tools, extensions: [] } : createToolSet(config);
  // A tenant's MCP servers (issue 44): a tool source read at run time, through the same registry and policy.
  const mcp: McpRuntime | undefined = isAdminPort(data) ? createMcpRuntime(config, data, kv, log, opts.mcp) : undefined;
  const registry = createToolRegistry(toolSet.tools, schemaDialect(config), {
    toolsets: toolSet.toolsets,
    ...(mcp ? { sources: [mcp.hub] } : {}),
  });
  // Usage rows the database cannot take wait where the inbox keeps its entries: Redis (shared by
  // the replicas, survives a restart) or this process's memory.
  const usageJournal = createUsageJournal({
    data,
    store: kv.redis
      ? redisJournalStore(kv.redis, `switchboard:usage-journal:${config.INBOX_QUEUE}`)
      : memoryJournalStore(),
    log,
    max: config.USAGE_JOURNAL_MAX,
  });
  usageJournal.start();
  // Settings per channel (issue 46), cached like tenants; the agent, the adapters and the admin routes share one cache.
  const channels = sharedChannelSettings(data, { log, staleMs: config.TENANT_STALE_MAX_MS });
  const agent = instrumentAgent(
    createAgent({
      config,
      llm,
      registry,
      data,
      store,
      lock,
      log,
      now: opts.now,
      extensions: [...toolSet.extensions, ...(opts.extensions ?? [])],
      rateLimits: limits.limits,
      pricing,
      // Shared files (ATTACHMENT_*); images shown to the model when it takes them (MODEL_INPUT_IMAGES).
      files: { ...config, images: modelTakesImages(config, llm.model, log) },
      guard: createGuard(config),
      // The turn record names the turn's trace (tracing on), so the console can link to it.
      traceId: currentTraceId,
      usageJournal,
      channels,
      ...(config.TURN_LOG_HASH_KEY ? { turnHashKey: config.TURN_LOG_HASH_KEY } : {}),
    }),
    { data, config },
  );
  if (config.REDIS_URL && !config.TURN_LOG_HASH_KEY)
    // Several replicas (REDIS_URL) each with a random key would hash one user or thread differently.
    log.warn(
      'TURN_LOG_HASH_KEY is unset: this process hashes threads and users in the turn record with a key of its own, so other replicas and restarts will not match; set it to group turns across them',
    );
  const stopRetention = isAdminPort(data) ? startTurnLogRetention(data, { days: config.TURN_LOG_DAYS, log }) : () => {};
  log.info(
    {
      data: data.kind,
      vectors: data.vectorsAvailable,
      state: config.REDIS_URL ? 'redis' : 'memory',
      tools: registry.tools.length,
      model: llm.model,
      prices: pricing.source(llm.model) ?? 'unknown',
      historyMaxTokens: config.HISTORY_MAX_TOKENS,
    },
    'switchboard ready',
  );
  return {
    config,
    log,
    llm,
    data,
    kv,
    inbox,
    registry,
    agent,
    channels,
    wrongTokens: limits.wrongTokens,
    ...(mcp ? { mcp } : {}),
    async close() {
      stopRetention();
      await mcp?.hub.close();
      await inbox.stop(0);
      // Before the connections go: one last try at the rows still waiting (bounded).
      await usageJournal.stop();
      await Promise.allSettled([kv.close(), opts.data ? Promise.resolve() : data.close()]);
    },
  };
}
