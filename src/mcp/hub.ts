import { LRUCache } from 'lru-cache';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../config/index.js';
import { ToolError, type AnyTool, type OfferContext, type ToolContext, type ToolSource } from '../contract/tool.js';
import { createPublicFetch } from '../net/public-fetch.js';
import type { KvStore } from '../state/kv.js';
import type { Logger } from '../telemetry/logger.js';
import { connectMcpServer, listServerTools } from './connect.js';
import { createConnectionPool, describeFailure, host, waitFor, type AuthProviderFor } from './connections.js';
import { createFindTools, foundTools } from './find-tools.js';
import { namesOf } from './names.js';
import { isMcpErrorCode, mcpSdk, type McpSdk } from './sdk.js';
import type { McpServer, McpServerStore } from './store.js';
import { isEnabled, mcpTool, type McpToolInfo } from './tools.js';

/** A server's tool list as the shared store keeps it (every replica reads the same). */
export interface ListingEntry {
  fetchedAt: number;
  tools: McpToolInfo[];
  transport?: 'streamable-http' | 'sse';
  /** The last listing failed (newer than `fetchedAt`): its tools are left out until one succeeds. */
  error?: string;
  failedAt?: number;
}

/** What the Health page shows of one server. */
export interface McpServerHealth {
  tenantId: string;
  server: string;
  host: string;
  state: 'ok' | 'failing' | 'needs_auth' | 'unreadable' | 'unknown';
  transport?: 'streamable-http' | 'sse';
  tools: number;
  enabled: number;
  error?: string;
  /** Since when it has been in this state (ISO). */
  since?: string;
}

export interface McpHub extends ToolSource {
  /** Connects to a server and lists its tools now (add time, `mcp tools`); throws with a message an operator can act on. */
  probe(server: McpServer): Promise<{ tools: McpToolInfo[]; transport: 'streamable-http' | 'sse' }>;
  /** The tenant's servers with their cached lists (listing them first where none is cached). */
  listings(tenantId: string): Promise<{ server: McpServer; entry?: ListingEntry; health?: McpServerHealth }[]>;
  /** Lists a server's tools again now, into the shared store. */
  refresh(server: McpServer): Promise<ListingEntry>;
  /** Forgets the tenant's cached servers and connections (its servers changed on this replica). */
  invalidate(tenantId: string): void;
  /** What this replica knows of every server it has used. */
  health(): McpServerHealth[];
  close(): Promise<void>;
}

export interface McpHubOptions {
  store: McpServerStore;
  kv: KvStore;
  log: Logger;
  config: Pick<
    Config,
    'MCP_CALL_TIMEOUT_MS' | 'MCP_OUTPUT_MAX_TOKENS' | 'MCP_INLINE_TOOLS' | 'MCP_ALLOW_LOOPBACK_HTTP'
  >;
  /** The OAuth client provider of an `auth_kind = 'oauth'` server (src/mcp/oauth.ts). */
  authProviderFor?: AuthProviderFor;
  grantUsable?: (server: McpServer) => Promise<boolean>; // an `oauth` server's grant is good (else its tools are left out)
  /** How old a cached list may be before it is listed again (default a minute). */
  refreshMs?: number;
  /** How long a server that failed is left out before it is tried again (default 30 s). */
  cooldownMs?: number;
  /** How long this replica trusts its copy of the tenant's servers (default 10 s). */
  serversTtlMs?: number;
  now?: () => number;
  fetch?: typeof fetch;
}

const KV_TTL_MS = 7 * 86_400_000;
/** How long a replica reuses its read of the shared list before reading it again. */
const MEMO_MS = 5_000;
/** How long a turn waits for a server nobody has listed yet (bounded by the call timeout). */
const COLD_WAIT_MS = 3_000;
const WARN_EVERY_MS = 60_000;

export function createMcpHub(opts: McpHubOptions): McpHub {
  const { store, kv, log, config } = opts;
  const now = opts.now ?? Date.now;
  const refreshMs = opts.refreshMs ?? 60_000;
  const cooldownMs = opts.cooldownMs ?? 30_000;
  const callTimeoutMs = config.MCP_CALL_TIMEOUT_MS;
  const connectTimeoutMs = Math.min(callTimeoutMs, 10_000);
  const fetchFn = opts.fetch ?? createPublicFetch({ allowLoopbackHttp: config.MCP_ALLOW_LOOPBACK_HTTP });

  const servers = new LRUCache<string, { at: number; list: Promise<McpServer[]> }>({ max: 10_000 });
  const memo = new Map<string, { entry: ListingEntry | undefined; readAt: number }>();
  const built = new Map<string, { key: string; tools: AnyTool[] }>();
  const refreshing = new Map<string, Promise<ListingEntry>>();
  const down = new Map<string, { until: number; error: string }>();
  const healthOf = new Map<string, McpServerHealth>();
  const warned = new Map<string, number>();
  const debounce = new Map<string, NodeJS.Timeout>();

  const kvKey = (s: McpServer) => `mcp:tools:${s.tenantId}:${s.id}`;
  const warn = (s: McpServer, fields: Record<string, unknown>, msg: string) => {
    if (s.authKind === 'oauth' && healthOf.get(s.id)?.state === 'needs_auth') return; // oauth-grants.ts says it once
    const last = warned.get(s.id) ?? -Infinity;
    if (now() - last < WARN_EVERY_MS) return;
    warned.set(s.id, now());
    log.warn({ tenant: s.tenantId, mcpServer: s.name, host: host(s.url), ...fields }, msg);
  };
  const setHealth = (s: McpServer, patch: Partial<McpServerHealth>) => {
    const prev = healthOf.get(s.id);
    const state = patch.state ?? prev?.state ?? 'unknown';
    healthOf.set(s.id, {
      tenantId: s.tenantId,
      server: s.name,
      host: host(s.url),
      tools: prev?.tools ?? 0,
      enabled: prev?.enabled ?? 0,
      ...prev,
      ...patch,
      state,
      since: prev?.state === state && prev.since ? prev.since : new Date(now()).toISOString(),
      ...(state === 'ok' ? { error: undefined } : {}),
    });
  };

  const pool = createConnectionPool({
    fetch: fetchFn,
    connectTimeoutMs,
    ...(opts.authProviderFor ? { authProviderFor: opts.authProviderFor } : {}),
    onToolsChanged: (server) => {
      // A burst of notifications is one listing.
      clearTimeout(debounce.get(server.id));
      debounce.set(
        server.id,
        setTimeout(() => {
          debounce.delete(server.id);
          void refresh(server).catch(() => {});
        }, 200).unref(),
      );
    },
  });

  const serversOf = (tenantId: string): Promise<McpServer[]> => {
    const held = servers.get(tenantId);
    if (held && now() - held.at < (opts.serversTtlMs ?? 10_000)) return held.list;
    const list = store.list(tenantId).catch((err: unknown) => {
      log.warn({ err, tenant: tenantId }, 'could not read the tenant’s MCP servers; offering none of their tools');
      servers.delete(tenantId);
      return [] as McpServer[];
    });
    servers.set(tenantId, { at: now(), list });
    return list;
  };

  const readEntry = async (s: McpServer): Promise<ListingEntry | undefined> => {
    const held = memo.get(s.id);
    if (held && now() - held.readAt < MEMO_MS) return held.entry;
    let entry: ListingEntry | undefined;
    try {
      entry = await kv.get<ListingEntry>(kvKey(s));
    } catch (err) {
      warn(s, { err }, 'could not read the cached MCP tool list');
      entry = held?.entry;
    }
    memo.set(s.id, { entry, readAt: now() });
    return entry;
  };

  const writeEntry = async (s: McpServer, entry: ListingEntry) => {
    memo.set(s.id, { entry, readAt: now() });
    await kv
      .set(kvKey(s), entry, KV_TTL_MS)
      .catch((err: unknown) => warn(s, { err }, 'could not share the MCP tool list'));
  };

  const listAll = async (s: McpServer) => {
    const conn = await pool.get(s);
    return { tools: await listServerTools(conn, callTimeoutMs), transport: conn.transport };
  };

  const refresh = (s: McpServer): Promise<ListingEntry> => {
    const running = refreshing.get(s.id);
    if (running) return running;
    const job = (async (): Promise<ListingEntry> => {
      try {
        const { tools, transport } = await listAll(s);
        const entry: ListingEntry = { fetchedAt: now(), tools, transport };
        await writeEntry(s, entry);
        down.delete(s.id);
        setHealth(s, { state: 'ok', transport, tools: tools.length });
        return entry;
      } catch (err) {
        pool.drop(s.id);
        const failure = describeFailure(err);
        const prev = memo.get(s.id)?.entry;
        const entry: ListingEntry = {
          fetchedAt: prev?.fetchedAt ?? 0,
          tools: prev?.tools ?? [],
          error: failure.message,
          failedAt: now(),
        };
        await writeEntry(s, entry);
        down.set(s.id, { until: now() + cooldownMs, error: failure.message });
        setHealth(s, { state: failure.state, error: failure.message });
        warn(s, { error: failure.message }, 'MCP server unavailable; its tools are left out of turns');
        return entry;
      } finally {
        refreshing.delete(s.id);
      }
    })();
    refreshing.set(s.id, job);
    return job;
  };

  const call = async (
    s: McpServer,
    name: string,
    args: Record<string, unknown>,
    ctx: ToolContext,
  ): Promise<CallToolResult> => {
    let conn;
    try {
      conn = await pool.get(s);
    } catch (err) {
      markDown(s, err);
      throw err;
    }
    let lastProgress = -Infinity;
    const started = performance.now();
    try {
      // The tool's own deadline (MCP_CALL_TIMEOUT_MS, run-tool.ts) aborts `ctx.signal`, and the SDK
      // then sends the server `notifications/cancelled`; the SDK's timeout is only a backstop.
      const result = await conn.client.callTool({ name, arguments: args }, undefined, {
        signal: ctx.signal,
        timeout: callTimeoutMs + 1_000,
        onprogress: (p) => {
          // At most one status a second: a chatty server must not flood the platform's API.
          if (performance.now() - lastProgress < 1_000) return;
          lastProgress = performance.now();
          const pct = p.total ? ` ${Math.round((p.progress / p.total) * 100)}%` : '';
          ctx.status?.(`${s.name}: ${(p.message ?? 'working…').slice(0, 120)}${pct}`);
        },
      });
      return result as CallToolResult;
    } catch (err) {
      // The server answered with an error of the protocol: the model may fix its call.
      if (isMcpErrorCode(err, 'InvalidParams', 'MethodNotFound'))
        throw new ToolError(`The server refused the call: ${err.message.slice(0, 300)}`);
      // Timed out, dropped, a 500, a malformed answer: left out for a while. A turn cancelled early is not the server's fault.
      const slow = ctx.signal.aborted && performance.now() - started >= callTimeoutMs - 50;
      if (!ctx.signal.aborted || slow) markDown(s, err, slow);
      throw err;
    }
  };

  const markDown = (s: McpServer, err: unknown, slow = false) => {
    const failure = slow
      ? { state: 'failing' as const, message: `slow: no answer within ${callTimeoutMs} ms` }
      : describeFailure(err);
    // A slow server keeps its connection (the cancellation goes out on it); a broken one is dropped.
    if (!slow) pool.drop(s.id);
    down.set(s.id, { until: now() + cooldownMs, error: failure.message });
    setHealth(s, { state: failure.state, error: failure.message });
    warn(s, { error: failure.message }, 'MCP server call failed; its tools are left out of turns for a while');
  };

  const build = (s: McpServer, entry: ListingEntry, { validator }: McpSdk): AnyTool[] => {
    const key = `${entry.fetchedAt}|${s.updatedAt}`;
    const held = built.get(s.id);
    if (held?.key === key) return held.tools;
    const { names, collisions } = namesOf(
      s.name,
      entry.tools.map((t) => t.name),
    );
    if (collisions.length) warn(s, { collisions }, 'MCP tools with colliding names left out');
    const tools: AnyTool[] = [];
    for (const info of entry.tools) {
      const name = names.get(info.name);
      if (!name || !isEnabled(info, s)) continue;
      try {
        tools.push(
          mcpTool(info, name, {
            server: s.name,
            call: (tool, args, ctx) => call(s, tool, args, ctx),
            timeoutMs: callTimeoutMs,
            maxOutputTokens: config.MCP_OUTPUT_MAX_TOKENS,
            validator,
          }),
        );
      } catch (err) {
        warn(
          s,
          { tool: info.name, err: describeFailure(err).message },
          'MCP tool schema does not compile; tool left out',
        );
      }
    }
    built.set(s.id, { key, tools });
    setHealth(s, {
      tools: entry.tools.length,
      enabled: tools.length,
      ...(entry.transport ? { transport: entry.transport } : {}),
    });
    return tools;
  };

  /** A server's enabled tools for this step: never waits past COLD_WAIT_MS, never throws. */
  const toolsOfServer = async (s: McpServer): Promise<AnyTool[]> => {
    if (s.headersUnreadable) {
      setHealth(s, {
        state: 'unreadable',
        error: 'its headers cannot be decrypted (MCP_SECRET_KEY changed?): add it again',
      });
      warn(s, {}, 'MCP server headers cannot be decrypted; server left out');
      return [];
    }
    const failed = down.get(s.id);
    if (failed && failed.until > now()) return [];
    if (s.authKind === 'oauth' && opts.grantUsable && !(await opts.grantUsable(s).catch(() => false))) {
      setHealth(s, { state: 'needs_auth', error: 'OAuth grant missing, expired or revoked: connect it again' });
      return [];
    }
    let entry = await readEntry(s);
    const stale =
      !entry ||
      now() - entry.fetchedAt >= refreshMs ||
      (entry.error !== undefined && now() - (entry.failedAt ?? 0) >= cooldownMs);
    if (stale) {
      const job = refresh(s);
      if (!entry) entry = await waitFor(job, Math.min(COLD_WAIT_MS, callTimeoutMs));
    }
    if (!entry) return [];
    if (entry.error !== undefined && (entry.failedAt ?? 0) >= entry.fetchedAt) return [];
    return build(s, entry, await mcpSdk());
  };

  const allTools = async (ctx: OfferContext): Promise<AnyTool[]> => {
    const list = await serversOf(ctx.tenant.id);
    if (list.length === 0) return [];
    return (await Promise.all(list.map((s) => toolsOfServer(s).catch(() => [])))).flat();
  };
  const findTools = createFindTools(allTools);

  return {
    async tools(ctx) {
      try {
        const all = await allTools(ctx);
        if (all.length <= config.MCP_INLINE_TOOLS) return all;
        const found = foundTools(ctx.state);
        return [findTools, ...all.filter((t) => found.has(t.name))];
      } catch (err) {
        log.warn({ err, tenant: ctx.tenant.id }, 'MCP tools unavailable for this step');
        return [];
      }
    },
    async probe(server) {
      const conn = await connectMcpServer(server, {
        fetch: fetchFn,
        timeoutMs: connectTimeoutMs,
        ...(server.authKind === 'oauth' && opts.authProviderFor
          ? { authProvider: await opts.authProviderFor(server) }
          : {}),
      });
      try {
        return { tools: await listServerTools(conn, callTimeoutMs), transport: conn.transport };
      } finally {
        await conn.close().catch(() => {});
      }
    },
    async listings(tenantId) {
      servers.delete(tenantId);
      const list = await serversOf(tenantId);
      return Promise.all(
        list.map(async (server) => {
          const entry = (await readEntry(server)) ?? (await waitFor(refresh(server), connectTimeoutMs + callTimeoutMs));
          const health = healthOf.get(server.id);
          return { server, ...(entry ? { entry } : {}), ...(health ? { health } : {}) };
        }),
      );
    },
    refresh,
    invalidate(tenantId) {
      const held = servers.get(tenantId);
      servers.delete(tenantId);
      void held?.list.then((list) =>
        list.forEach((s) => {
          pool.drop(s.id);
          memo.delete(s.id);
          down.delete(s.id);
        }),
      );
    },
    health: () => [...healthOf.values()],
    async close() {
      for (const t of debounce.values()) clearTimeout(t);
      debounce.clear();
      await pool.closeAll();
    },
  };
}
