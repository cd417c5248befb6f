import { configuredAdapters } from './adapters/adapter.js';
import { createHttpApp } from './adapters/http/app.js';
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
  const http = await startHttpServer(app, config.PORT, config.HOST, adapters.flatMap((a) => a.routes ?? []));
  for (const adapter of adapters) await adapter.start();
  log.info({ url: http.url, adapters: adapters.map((a) => a.name) }, `Switchboard listening on ${http.url}`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await Promise.allSettled(adapters.map((a) => a.stop()));
    await http.close();
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
