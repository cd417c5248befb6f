import { ConfigError, loadConfigForStartup } from './config/index.js';
import { createLogger } from './telemetry/logger.js';
import { serve, type Serving } from './wiring/serve.js';
import { startTracing, type Tracing } from './telemetry/start.js';

/** `npm start`: the HTTP API plus every platform adapter whose credentials are configured. */
async function main(): Promise<void> {
  const config = loadConfigForStartup();
  const log = createLogger(config.LOG_LEVEL);
  let running: Serving | undefined = undefined;
  // Before anything that makes spans; loads the OpenTelemetry SDK only when an OTLP endpoint is set.
  const tracing: Tracing | undefined = await startTracing(
    { ...process.env, OPENAI_BASE_URL: config.OPENAI_BASE_URL },
    log,
  );
  let stopping = false;
  const stop = async (reason: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    // A drain that hangs must not keep a broken process alive: exit anyway after the drain window.
    setTimeout(() => process.exit(exitCode), config.SHUTDOWN_DRAIN_MS + 5_000).unref();
    log.info({ signal: reason }, 'shutting down');
    await running?.stop().catch((err: unknown) => log.error({ err }, 'shutdown did not finish cleanly'));
    // The spans of the turns that just drained (and of a fatal error's turn) are exported before exit.
    await tracing?.shutdown();
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void stop('SIGINT', 0));
  process.on('SIGTERM', () => void stop('SIGTERM', 0));
  // Whatever escaped every handler: say so with a code, stop taking work, hand running turns back
  // to the inbox as SIGTERM does (another replica or the restarted process replays them), exit 1.
  const fatal = (code: 'uncaught_exception' | 'unhandled_rejection') => (err: unknown) => {
    log.fatal({ code, err }, `${code.replace('_', ' ')}: draining and exiting so a supervisor restarts the process`);
    running?.markNotReady();
    void stop(code, 1);
  };
  process.on('uncaughtException', fatal('uncaught_exception'));
  process.on('unhandledRejection', fatal('unhandled_rejection'));

  running = await serve(config, log);
  // Which model answers, and where: the first thing to check when answers look wrong (never the key).
  const endpoint = config.OPENAI_BASE_URL ? new URL(config.OPENAI_BASE_URL).origin : 'https://api.openai.com';
  log.info({ llm: endpoint, model: config.OPENAI_MODEL }, `LLM: ${config.OPENAI_MODEL} at ${endpoint}`);
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
