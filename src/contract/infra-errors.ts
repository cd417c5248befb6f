/**
 * Whether an error means Redis or Postgres could not be reached (refused, reset, closed,
 * starting up or shutting down, a connection that timed out), as opposed to a bug or a refusal:
 * work that failed this way may succeed unchanged a moment later. The error is read with its
 * `cause` chain and an AggregateError's parts (Node reports a refused dual-stack connect as one),
 * by code first and then by the drivers' own words (ioredis, pg, supabase-js's fetch).
 */
export function isConnectionError(err: unknown): boolean {
  return walk(err, 0);
}

/** Node's socket errors that say the peer is away, not that the request was wrong. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTCONN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * SQLSTATEs of a server that is away or going: class 08 (connection exception), 57P01
 * admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now ("starting up"), 53300
 * too_many_connections; PostgREST's PGRST000/001/003 (no connection to the database).
 */
const SQL_STATES = new Set(['57P01', '57P02', '57P03', '53300', 'PGRST000', 'PGRST001', 'PGRST003']);

/** The drivers' words when they carry no code (ioredis' offline client, pg's pool and socket). */
const WORDS =
  /Connection is closed|Stream isn't writeable|enableOfflineQueue|max retries per request|Connection terminated|Connection ended unexpectedly|timeout exceeded when trying to connect|the database system is (starting up|shutting down|in recovery)|terminating connection due to administrator command|Client has encountered a connection error/i;

function walk(err: unknown, depth: number): boolean {
  if (depth > 6 || typeof err !== 'object' || err === null) return false;
  const { code, name, message, cause, errors } = err as {
    code?: unknown;
    name?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SQL_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)))
    return true;
  const sqlState = (err as { sqlState?: unknown }).sqlState;
  if (typeof sqlState === 'string' && (SQL_STATES.has(sqlState) || /^08[0-9A-Z]{3}$/.test(sqlState))) return true;
  if (name === 'MaxRetriesPerRequestError') return true;
  if (typeof message === 'string' && WORDS.test(message)) return true;
  if (Array.isArray(errors) && errors.some((e) => walk(e, depth + 1))) return true;
  return walk(cause, depth + 1);
}
