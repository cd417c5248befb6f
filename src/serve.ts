import { configuredAdapters, type PlatformAdapter } from './adapters/adapter.js';
import { createHttpApp } from './adapters/http/app.js';
import { startIngress } from './adapters/http/ingress.js';
import { startHttpServer } from './adapters/http/server.js';
import { createSwitchboard, type Switchboard, type SwitchboardOptions } from './app.js';
import type { Config } from './config.js';
import type { Logger } from './logger.js';

export interface Serving {
  url: string;
  sb: Switchboard;
  adapters: PlatformAdapter[];
  /** Stops taking requests (those in flight finish), drains the adapters' turns, closes the core. */
  stop(): Promise<void>;
}

/**
 * What `npm start` runs: the HTTP API plus every platform adapter whose credentials are
 * configured. `opts` replaces parts of the core (benchmarks run it with an in-process LLM).
 */
export async function serve(config: Config, log: Logger, opts: SwitchboardOptions = {}): Promise<Serving> {
  const sb = await createSwitchboard(config, log, opts);
  const adapters = await configuredAdapters(sb);
  const app = createHttpApp({
    agent: sb.agent,
    log,
    apiToken: config.API_TOKEN,
    health: () => ({ data: sb.data.kind, adapters: adapters.map((a) => a.name) }),
  });
  const routes = adapters.flatMap((a) => a.routes ?? []);
  // Slack over HTTP: the public server runs in its own thread, so Slack's acks never wait behind turns.
  const slack = adapters.find((a) => a.ingress)?.ingress;
  const ingress = slack
    ? await startIngress({ app, port: config.PORT, host: config.HOST, slack, log, routes, turnPriority: config.TURN_PRIORITY })
    : undefined;
  const http = ingress ?? (await startHttpServer(app, config.PORT, config.HOST, routes));
  for (const adapter of adapters) await adapter.start();
  await ingress?.slackReady;
  log.info({ url: http.url, adapters: adapters.map((a) => a.name) }, `Switchboard listening on ${http.url}`);
  return {
    url: http.url,
    sb,
    adapters,
    async stop() {
      await http.close();
      await Promise.allSettled(adapters.map((a) => a.stop()));
      await sb.close();
    },
  };
}
