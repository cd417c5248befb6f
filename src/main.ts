import { ConfigError, loadConfigForStartup } from './config.js';
import { createLogger } from './logger.js';
import { serve } from './serve.js';

/** `npm start`: the HTTP API plus every platform adapter whose credentials are configured. */
async function main(): Promise<void> {
  const config = loadConfigForStartup();
  const log = createLogger(config.LOG_LEVEL);
  const running = await serve(config, log);
  // Which model answers, and where: the first thing to check when answers look wrong (never the key).
  const endpoint = config.OPENAI_BASE_URL ? new URL(config.OPENAI_BASE_URL).origin : 'https://api.openai.com';
  log.info({ llm: endpoint, model: config.OPENAI_MODEL }, `LLM: ${config.OPENAI_MODEL} at ${endpoint}`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await running.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err: unknown) => {
  // Configuration problems (unreachable DATABASE_URL or REDIS_URL, a locked PGLITE_DIR, PORT in
  // use) exit 2 like parse errors: restarting will not help until the setting is fixed.
  if (err instanceof ConfigError) {
    console.error(`Switchboard could not start.\n${err.message}`);
    process.exit(2);
  }
  const message = err instanceof Error ? err.message : String(err);
  console.error(`Switchboard could not start: ${message}`);
  process.exit(1);
});
