import type { Agent } from '../agent/agent.js';
import type { ToolRegistry } from '../agent/registry.js';
import type { Config } from '../config/index.js';
import type { DataPort } from '../contract/data.js';
import type { LlmClient } from '../contract/llm.js';
import type { WrongTokens } from '../security/wrong-tokens.js';
import type { KvStore } from '../state/kv.js';
import type { Logger } from '../telemetry/logger.js';
import type { Inbox } from '../inbox/index.js';

/**
 * Everything one Switchboard process runs on, wired once by `createSwitchboard`
 * (src/wiring/app.ts). Declared here, by the adapters that run on it, so they never import
 * the wiring that starts them.
 */
export interface Switchboard {
  config: Config;
  log: Logger;
  llm: LlmClient;
  data: DataPort;
  kv: KvStore;
  /** Events recorded by the adapters before they ack; runs their turns. Started by `serve()`. */
  inbox: Inbox;
  registry: ToolRegistry;
  agent: Agent;
  /** ADMIN_TOKEN guesses per client address (console sign-in and admin API), shared by replicas on Redis. */
  wrongTokens: WrongTokens;
  close(): Promise<void>;
}
