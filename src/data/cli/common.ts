import { pino } from 'pino';
import { exitOnConfigError, loadConfig, type Config } from '../../config/index.js';
import { createLogger, type Logger } from '../../telemetry/logger.js';
import { DataError } from '../../contract/data.js';

/** Config and a logger that writes to stderr, so stdout carries only the CLI's report. */
export function cliSetup(): { config: Config; log: Logger } {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    exitOnConfigError(err);
  }
  const level = process.env.LOG_LEVEL ? config.LOG_LEVEL : 'warn';
  return { config, log: createLogger(level, pino.destination(2)) };
}

/** The database a command writes to, named for a person (no credentials). */
export function describeTarget(config: Config): string {
  const host = (url: string) => {
    try {
      return new URL(url).host;
    } catch {
      return '(unparseable URL)';
    }
  };
  if (config.DATABASE_URL) return `Postgres at ${host(config.DATABASE_URL)}`;
  if (config.SUPABASE_URL) return `Supabase at ${host(config.SUPABASE_URL)}`;
  return config.PGLITE_MEMORY ? 'the embedded database in memory' : `the embedded database in ${config.PGLITE_DIR}`;
}

/** Prints a failure for a person (no stack unless LOG_LEVEL=debug) and exits. */
export function fail(err: unknown): never {
  exitOnConfigErrorOrReturn(err);
  if (err instanceof DataError) {
    console.error(`Error: ${err.detail ?? err.message}`);
  } else {
    console.error(`Error: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (process.env.LOG_LEVEL === 'debug' && err instanceof Error) console.error(err.stack);
  process.exit(1);
}

function exitOnConfigErrorOrReturn(err: unknown): void {
  if (err instanceof Error && err.name === 'ConfigError') exitOnConfigError(err);
}
