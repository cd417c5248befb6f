import pg from 'pg';
import type { SqlClient } from './types.js';

export interface PostgresOptions {
  /** Pool size; the agent issues a handful of concurrent calls per turn at most. */
  max?: number;
  statementTimeoutMs?: number;
}

/**
 * Postgres through a `pg` pool. Sessions run in UTC so timestamps serialize the same
 * way they do through PostgREST.
 */
export function openPostgres(url: string, opts: PostgresOptions = {}): SqlClient {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: opts.statementTimeoutMs ?? 15_000,
    options: '-c TimeZone=UTC',
    application_name: 'switchboard',
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});

  const client = (q: pg.Pool | pg.PoolClient): Omit<SqlClient, 'transaction' | 'close'> => ({
    async query(sql, params) {
      const res = await q.query(sql, params);
      return res.rows as Record<string, unknown>[];
    },
    async exec(sql) {
      await q.query(sql);
    },
  });

  let closed = false;
  const self: SqlClient = {
    ...client(pool),
    async transaction(fn) {
      const conn = await pool.connect();
      try {
        await conn.query('begin');
        const result = await fn({
          ...client(conn),
          transaction: () => Promise.reject(new Error('nested transactions are not supported')),
          close: async () => {},
        });
        await conn.query('commit');
        return result;
      } catch (err) {
        await conn.query('rollback').catch(() => {});
        throw err;
      } finally {
        conn.release();
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
  return self;
}
