import type { AddressInfo } from 'node:net';
import { configuredAdapters } from '../adapters/adapter.js';
import { type PlatformAdapter } from '../adapters/platform.js';
import { describeAccess } from '../adapters/http/access.js';
import { createHttpApp } from '../adapters/http/app.js';
import { mountOps } from '../adapters/http/ops.js';
import { mountConsole } from '../adapters/http/admin-console/index.js';
import { startHttpServer } from '../adapters/http/server.js';
import { startHttpApprovalsOf } from '../adapters/http/approval-expiry.js';
import { createSwitchboard, type Switchboard, type SwitchboardOptions } from './app.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../telemetry/logger.js';

export interface Serving {
  url: string;
  sb: Switchboard;
  adapters: PlatformAdapter[];
  /**
   * A graceful stop: no new requests or events; running turns finish for up to
   * SHUTDOWN_DRAIN_MS, then are handed back to the inbox (another replica replays them).
   */
  stop(): Promise<void>;
  /** /readyz answers 503 from now on (a fatal error: the process is about to drain and exit). */
  markNotReady(): void;
}

/**
 * What `npm start` runs: the HTTP API plus every platform adapter whose credentials are
 * configured, all on one server. `opts` replaces parts of the core (benchmarks run it with an
 * in-process LLM).
 */
export async function serve(config: Config, log: Logger, opts: SwitchboardOptions = {}): Promise<Serving> {
  const sb = await createSwitchboard(config, log, opts);
  const adapters = await configuredAdapters(sb);
  const app = createHttpApp({
    agent: sb.agent,
    log,
    apiToken: config.API_TOKEN,
    trustProxy: config.TRUST_PROXY,
    adminToken: config.ADMIN_TOKEN,
    wrongTokens: sb.wrongTokens,
    ...(config.API_MAX_TURNS_IN_FLIGHT ? { maxTurnsInFlight: config.API_MAX_TURNS_IN_FLIGHT } : {}),
    data: sb.data,
    kv: sb.kv,
    mcp: sb.mcp,
    maxAttachmentBytes: config.ATTACHMENT_MAX_BYTES,
    health: () => ({ data: sb.data.kind, inbox: sb.inbox.kind, adapters: adapters.map((a) => a.name) }),
  });
  let notReady = false;
  mountOps(app, {
    data: sb.data,
    kv: sb.kv,
    inbox: sb.inbox,
    adapters,
    log,
    metricsToken: config.METRICS_TOKEN,
    trustProxy: config.TRUST_PROXY,
    draining: () => notReady,
    requireRedisPersistence: config.REDIS_REQUIRE_PERSISTENCE,
  });
  // The operator console (/admin): off without ADMIN_TOKEN.
  mountConsole(app, {
    adminToken: config.ADMIN_TOKEN,
    data: sb.data,
    kv: sb.kv,
    inbox: sb.inbox,
    adapters,
    log,
    config,
    // One count of wrong ADMIN_TOKENs with the admin API's.
    wrongTokens: sb.wrongTokens,
    // Satisfaction per tool family (issue 47): the registry's tags.
    toolFamily: (tool) => sb.registry.tools.find((t) => t.name === tool)?.family,
    // A tenant's MCP servers: the OAuth Connect and its callback (issue 44).
    ...(sb.mcp ? { mcp: sb.mcp } : {}),
  });
  const http = await startHttpServer(
    app,
    config.PORT,
    config.HOST,
    adapters.flatMap((a) => a.routes ?? []),
  );
  // HTTP approvals nobody decides expire on their own (issue 43): the sweep and its inbox delivery.
  const stopHttpApprovals = startHttpApprovalsOf(sb);
  try {
    for (const adapter of adapters) await adapter.start();
    await sb.inbox.start();
  } catch (err) {
    await http.close();
    await stopHttpApprovals?.();
    await Promise.allSettled(adapters.map(async (a) => (await a.stop(), await a.close?.())));
    await sb.close();
    throw err;
  }
  const { port } = http.server.address() as AddressInfo;
  const listen = `${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}`;
  // One line: what is open to whom, and where.
  log.info(
    { url: http.url, adapters: adapters.map((a) => a.name), inbox: sb.inbox.kind },
    describeAccess({
      apiToken: config.API_TOKEN,
      metricsToken: config.METRICS_TOKEN,
      adminToken: config.ADMIN_TOKEN,
      trustedHops: config.TRUST_PROXY,
      listen,
    }),
  );
  return {
    url: http.url,
    sb,
    adapters,
    markNotReady: () => void (notReady = true),
    async stop() {
      notReady = true;
      // No new requests or events; requests in flight (SSE answers) and running turns drain side by side.
      const requests = http.close(config.SHUTDOWN_DRAIN_MS);
      await Promise.allSettled([...adapters.map((a) => a.stop()), stopHttpApprovals?.()]);
      await Promise.allSettled([requests, sb.inbox.stop(config.SHUTDOWN_DRAIN_MS)]);
      await Promise.allSettled(adapters.map((a) => a.close?.()));
      await sb.close();
    },
  };
}
