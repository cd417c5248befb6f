import { createRequire } from 'node:module';
import { pino, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import { logTraceIds } from './tracing.js';

export type { Logger };

/** Paths whose values never reach a log line, whatever level. */
export const REDACT_PATHS = [
  '*.apiKey',
  '*.token',
  '*.authorization',
  '*.password',
  '*.secret',
  // Customer contact details a business lookup may carry (bookings): never in a log line.
  '*.email',
  '*.phone',
  '*.customer_email',
  '*.customer_phone',
  // A guest's second fact for a booking lookup (get_booking_by_id).
  '*.phone_or_email',
  '*.customerEmail',
  '*.customerPhone',
  'config.OPENAI_API_KEY',
  'config.SUPABASE_SERVICE_ROLE_KEY',
  'config.SLACK_BOT_TOKEN',
  'config.SLACK_SIGNING_SECRET',
  'config.SLACK_APP_TOKEN',
  'config.DISCORD_TOKEN',
  'config.TAVILY_API_KEY',
  'config.API_TOKEN',
  'config.ADMIN_TOKEN',
  'req.headers.authorization',
  'headers.authorization',
];

/** pino-pretty, loaded only for a terminal: a server writing JSON lines never needs it. */
function prettyStream(): pino.DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  return pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,app' });
}

/**
 * JSON lines (for log collectors); on an interactive terminal with no destination given,
 * pino-pretty's readable lines instead.
 */
export function createLogger(
  level = 'info',
  destination: pino.DestinationStream | undefined = process.stdout.isTTY ? prettyStream() : undefined,
): Logger {
  return pino(
    {
      level,
      base: { app: 'switchboard' },
      // With tracing on, a line written inside a span (a turn, a tool call) carries its trace_id and span_id.
      mixin: logTraceIds,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      // Stacks only at debug: an info line carries the error's name and message.
      serializers: {
        err: (err: unknown) => {
          if (!(err instanceof Error)) return { message: String(err) };
          const out: Record<string, unknown> = { type: err.name, message: scrubSecrets(err.message) };
          if ((level === 'debug' || level === 'trace') && err.stack) out.stack = scrubSecrets(err.stack);
          return out;
        },
      },
    },
    destination,
  );
}

/** Removes things that look like credentials from free text (error messages from SDKs). */
export function scrubSecrets(text: string): string {
  return text
    .replace(/\b(password|passwd|pwd|secret|token|api[_-]?key)\s*[=:]\s*[^\s&,;]+/gi, '$1=[redacted]')
    .replace(/(\w+:\/\/[^:/@\s]+):[^@\s]+@/g, '$1:[redacted]@')
    .replace(/\b(sk|xox[abposr]|xapp|tvly)-[A-Za-z0-9-_]{6,}/g, '$1-[redacted]')
    .replace(/Bearer\s+[A-Za-z0-9._~+/-]+=*/gi, 'Bearer [redacted]')
    .replace(/\b[A-Za-z0-9_-]{24}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}\b/g, '[redacted-discord-token]');
}

export const silentLogger = (): Logger => pino({ level: 'silent' });
