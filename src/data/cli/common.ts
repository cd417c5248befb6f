import { pino } from 'pino';
import { exitOnConfigError, loadConfig, type Config } from '../../config.js';
import { createLogger, type Logger } from '../../logger.js';
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

/** `--name value` and `--flag` options, plus positional arguments. */
export function parseArgs(argv: string[]): { positional: string[]; options: Map<string, string | true> } {
  const positional: string[] = [];
  const options = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const [name = '', inline] = arg.slice(2).split('=', 2);
    const next = argv[i + 1];
    if (inline !== undefined) options.set(name, inline);
    else if (next !== undefined && !next.startsWith('--') && VALUE_OPTIONS.has(name))
      options.set(name, argv[++i] ?? '');
    else options.set(name, true);
  }
  return { positional, options };
}

const VALUE_OPTIONS = new Set(['tenant', 'label']);

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
