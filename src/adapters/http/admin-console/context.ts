import type { Context } from 'hono';
import type { Config } from '../../../config/index.js';
import type { DataPort } from '../../../contract/data.js';
import type { WrongTokens } from '../../../security/wrong-tokens.js';
import type { KvStore } from '../../../state/kv.js';
import type { Logger } from '../../../telemetry/logger.js';
import type { Inbox } from '../../../inbox/index.js';
import type { PlatformAdapter } from '../../platform.js';
import type { Session, SessionKeys } from './session.js';
import type { McpRuntime } from '../../../mcp/index.js';

export interface ConsoleDeps {
  adminToken: string | undefined;
  data: DataPort;
  kv: KvStore;
  inbox: Inbox;
  adapters: PlatformAdapter[];
  log: Logger;
  config: Pick<
    Config,
    | 'TRUST_PROXY'
    | 'TRACE_URL_TEMPLATE'
    | 'TOKEN_BUDGET_PER_USER_DAILY'
    | 'TOKEN_BUDGET_PER_TENANT_MONTHLY'
    | 'BUDGET_USD_PER_TENANT_MONTHLY'
  > &
    Partial<Pick<Config, 'MCP_OAUTH_REDIRECT_URL'>> &
    Partial<Pick<Config, 'REDIS_REQUIRE_PERSISTENCE' | 'THREAD_CONTEXT'>>;
  /**
   * Wrong ADMIN_TOKENs per client address, one count with the admin API's (serve.ts passes the
   * process's, on Redis with REDIS_URL); without it, one of this console's own in memory.
   */
  wrongTokens?: WrongTokens;
  /** A tool's family (the registry's tags; issue 47: satisfaction per tool family); none: every tool is "other". */
  toolFamily?: (tool: string) => string | undefined;
  /** How long a wrong token waits before its answer (default 750 ms), when `wrongTokens` is not given. */
  signInDelayMs?: number;
  now?: () => Date;
  /** A tenant's MCP servers (issue 44): the OAuth `Connect` and its callback (routes/mcp-oauth.ts). */
  mcp?: McpRuntime;
}

/** What `mountConsole` works out once from its deps, for every group of routes. */
export interface ConsoleContext {
  deps: ConsoleDeps;
  log: Logger;
  now: () => Date;
  /** TRUST_PROXY as a number of proxies. */
  trustProxy: number;
  /** ADMIN_TOKEN, and the keys derived from it; both undefined when the console is off. */
  adminToken: string | undefined;
  keys: SessionKeys | undefined;
  /** The session of this request; null when there is none; 'unavailable' when the store cannot say (logged). */
  liveSession: (c: Context) => Promise<Session | null | 'unavailable'>;
}
