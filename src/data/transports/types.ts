import type { SqlFunctionName } from '../../contract/catalogue.js';

export type TransportKind = 'pglite' | 'postgres' | 'supabase';

/** A transport failure carrying the SQLSTATE (or PostgREST code) when there is one. */
export class TransportError extends Error {
  constructor(
    readonly sqlState: string | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TransportError';
  }
}

export interface RpcOptions {
  /**
   * Lift the statement timeout: an import commit may run for minutes, a tool's read
   * must not. (PostgREST's own per-role timeout still applies on Supabase.)
   */
  unbounded?: boolean;
  /**
   * The caller wants no rows back (a write such as the token ledger's): the SQL transports then
   * neither aggregate nor return them, which is a sixth of such a call on the embedded database.
   */
  discardRows?: boolean;
}

/**
 * One way to reach the SQL functions. `rpc` calls a catalogued function with named
 * arguments (already checked by the port, names without `p_`) and returns the rows as
 * Postgres serializes them to JSON.
 */
export interface Transport {
  readonly kind: TransportKind;
  /** The SQL client underneath, for the transports that have one (PGlite, pg). */
  readonly sql?: SqlClient;
  rpc(fn: SqlFunctionName, args: Record<string, unknown>, opts?: RpcOptions): Promise<unknown[]>;
  close(): Promise<void>;
}

/** Raw SQL, for the migrator and for the two transports that speak SQL (PGlite, pg). */
export interface SqlClient {
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Runs a script of several statements (no parameters). */
  exec(sql: string): Promise<void>;
  transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** SQLSTATE of a driver error (`pg` and PGlite both put it in `code`). */
export function sqlStateOf(err: unknown): string | undefined {
  if (err instanceof TransportError) return err.sqlState;
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string') return err.code;
  return undefined;
}
