import type { Config } from '../config/index.js';
import type { AdminDataPort } from '../data/rpc-port.js';
import type { KvStore } from '../state/kv.js';
import type { Logger } from '../telemetry/logger.js';
import type { AuthProviderFor } from './connections.js';
import { createMcpHub, type McpHub, type McpHubOptions } from './hub.js';
import { createMcpServerStore, mcpSealer, type McpServerStore } from './store.js';
import { createPublicFetch } from '../net/public-fetch.js';
import { createMcpOAuth, type McpOAuth } from './oauth.js';
import { createOAuthStore } from './oauth-store.js';

export type { McpHub, McpServerHealth, ListingEntry } from './hub.js';
export type { McpServer, McpServerStore, McpServerSummary } from './store.js';
export type { AuthProviderFor } from './connections.js';

/** A tenant's MCP servers (issue 44): their rows and the hub that lists, offers and calls their tools. */
export interface McpRuntime {
  store: McpServerStore;
  hub: McpHub;
  /** OAuth grants of `oauth` servers: the console's Connect and callback, the Health page. */
  oauth: McpOAuth;
  /** The settings it was made with (loopback, the deployment's own secrets that no server may get). */
  config: Config;
}

export type McpConfig = Pick<
  Config,
  | 'MCP_CALL_TIMEOUT_MS'
  | 'MCP_OUTPUT_MAX_TOKENS'
  | 'MCP_INLINE_TOOLS'
  | 'MCP_ALLOW_LOOPBACK_HTTP'
  | 'MCP_SECRET_KEY'
  | 'SLACK_TOKEN_ENCRYPTION_KEY'
>;

export function createMcpRuntime(
  config: Config,
  data: AdminDataPort,
  kv: KvStore,
  log: Logger,
  opts: Partial<Pick<McpHubOptions, 'refreshMs' | 'cooldownMs' | 'serversTtlMs' | 'now' | 'fetch'>> & {
    authProviderFor?: AuthProviderFor;
  } = {},
): McpRuntime {
  const sealer = mcpSealer(config);
  const store = createMcpServerStore(data, sealer);
  const mcpLog = log.child({ component: 'mcp' });
  // OAuth servers (src/mcp/oauth.ts): their grants sealed in mcp_oauth, used and refreshed by the hub's connections.
  const fetchFn = opts.fetch ?? createPublicFetch({ allowLoopbackHttp: config.MCP_ALLOW_LOOPBACK_HTTP });
  const oauth = createMcpOAuth({
    store: createOAuthStore(data, sealer),
    servers: store,
    fetch: fetchFn,
    log: mcpLog,
    ...(opts.now ? { now: opts.now } : {}),
  });
  const hub = createMcpHub({
    store,
    kv,
    log: mcpLog,
    config,
    authProviderFor: (server) => oauth.providerFor(server),
    grantUsable: (server) => oauth.usable(server),
    ...opts,
    fetch: fetchFn,
  });
  return { store, hub, oauth, config };
}
