import { z } from 'zod';
import { int } from './fields.js';

/**
 * Logs, the turn record the operator console reads, and links to traces. OpenTelemetry's own
 * `OTEL_*` variables are not parsed here (see src/config/index.ts).
 */
export const telemetrySettings = z.object({
  /** How long the turn record the operator console reads (/admin: turns, overview) is kept. */
  TURN_LOG_DAYS: int(90, 1, 3_650),
  /**
   * The key of the turn record's hashes of thread and user ids (HMAC-SHA-256), so the console
   * can group a user's turns without being able to say who they are. Unset: a random key per
   * process (hashes do not match across restarts or replicas). At least 16 characters.
   */
  TURN_LOG_HASH_KEY: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(z.string().min(16, 'is at least 16 characters (a random secret)').optional()),
  /** A link to a turn's trace in the console, `{trace_id}` replaced (e.g. http://localhost:16686/trace/{trace_id}). */
  TRACE_URL_TEMPLATE: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(
      z
        .string()
        .regex(/^https?:\/\/\S*\{trace_id\}\S*$/, 'is an http(s) URL containing {trace_id}')
        .optional(),
    ),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});
