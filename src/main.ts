import { configuredAdapters } from './adapters/adapter.js';
import { createHttpApp } from './adapters/http/app.js';
import { startIngress } from './adapters/http/ingress.js';
import { startHttpServer } from './adapters/http/server.js';
import { createSwitchboard } from './app.js';
import { loadConfigForStartup } from './config.js';
import { createLogger } from './logger.js';

/** `npm start`: the HTTP API plus every platform adapter whose credentials are configured. */
async function main(): Promise<void> {
  const config = loadConfigForStartup();
  const log = createLogger(config.LOG_LEVEL);
  const sb = await createSwitchboard(config, log);
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
  const ingress = slack ? await startIngress({ app, port: config.PORT, host: config.HOST, slack, log, routes }) : undefined;
  const http = ingress ?? (await startHttpServer(app, config.PORT, config.HOST, routes));
  for (const adapter of adapters) await adapter.start();
  await ingress?.slackReady;
  log.info({ url: http.url, adapters: adapters.map((a) => a.name) }, `Switchboard listening on ${http.url}`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    // Stop taking requests (those in flight finish), then let the adapters drain their turns.
    await http.close();
    await Promise.allSettled(adapters.map((a) => a.stop()));
    await sb.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  console.error(`Switchboard could not start: ${message}`);
  process.exit(1);
});
