import type { Agent } from '../agent/agent.js';
import type { ToolRegistry } from '../agent/registry.js';
import type { Config } from '../config/index.js';
import type { DataPort } from '../contract/data.js';
import type { LlmClient } from '../contract/llm.js';
import type { WrongTokens } from '../security/wrong-tokens.js';
import type { KvStore } from '../state/kv.js';
import type { Logger } from '../telemetry/logger.js';
import type { Inbox } from '../inbox/index.js';
import type { McpRuntime } from '../mcp/index.js';
import type { ChannelSettingsLookup } from '../data/channel-settings.js';

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
  /** Settings per channel (issue 46), cached like tenants: the reply mode, `/switchboard settings`, the admin routes. */
  channels: ChannelSettingsLookup;
  /** ADMIN_TOKEN guesses per client address (console sign-in and admin API), shared by replicas on Redis. */
  wrongTokens: WrongTokens;
  /** A tenant's MCP servers (issue 44): their store and the hub that offers their tools (absent without an admin data port). */
  mcp?: McpRuntime;
  close(): Promise<void>;
}
