import {
  HTTPModuleFunctions,
  LogLevel,
  type Logger as BoltLogger,
  type ReceiverProcessEventErrorHandlerArgs,
} from '@slack/bolt';
import { scrubSecrets, type Logger } from '../../telemetry/logger.js';

/**
 * Bolt, web-api and socket-mode log through this: their lines land in our pino log, scrubbed of
 * anything token-shaped. Their debug chatter (request bodies) stays at debug.
 */
export function boltLogger(log: Logger): BoltLogger {
  let level = toBoltLevel(log.level);
  const line = (parts: unknown[]) =>
    scrubSecrets(
      parts
        .map((p) => (p instanceof Error ? `${p.name}: ${p.message}` : typeof p === 'string' ? p : safeJson(p)))
        .join(' '),
    );
  return {
    debug: (...msg: unknown[]) => log.isLevelEnabled('debug') && log.debug({ source: 'bolt' }, line(msg)),
    info: (...msg: unknown[]) => log.info({ source: 'bolt' }, line(msg)),
    warn: (...msg: unknown[]) => log.warn({ source: 'bolt' }, line(msg)),
    error: (...msg: unknown[]) => log.error({ source: 'bolt' }, line(msg)),
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}

/**
 * The HTTP receiver's answer to an event whose listener failed: Bolt's own (500, so Slack retries
 * it; 401 for an authorization error), without its "An unhandled error occurred while Bolt
 * processed an event" error line, which says nothing the listener's own line (`app.error` in
 * handlers.ts: once per outage while the inbox is unreachable) has not said: at debug here.
 */
export function processEventError(args: ReceiverProcessEventErrorHandlerArgs): Promise<boolean> {
  const { logger } = args;
  const quiet: BoltLogger = { ...logger, error: (...msg: unknown[]) => logger.debug(...msg) };
  return HTTPModuleFunctions.defaultProcessEventErrorHandler({ ...args, logger: quiet });
}

function toBoltLevel(pinoLevel: string): LogLevel {
  if (pinoLevel === 'debug' || pinoLevel === 'trace') return LogLevel.DEBUG;
  if (pinoLevel === 'warn') return LogLevel.WARN;
  if (pinoLevel === 'error' || pinoLevel === 'fatal' || pinoLevel === 'silent') return LogLevel.ERROR;
  return LogLevel.INFO;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
