import { ALL_FUNCTIONS, sqlType, type SqlFunctionName } from '../../contract/catalogue.js';
import { sqlStateOf, TransportError, type SqlClient, type Transport, type TransportKind } from './types.js';

/**
 * Builds `select json_agg(r) from (select * from public.fn(p_a => $1::type, …)) r`. The function name
 * and argument names come from the catalogue (never from the caller); values are bound
 * parameters. Aggregating to JSON in SQL makes PGlite and `pg` return exactly what
 * PostgREST returns for Supabase: one row shape for all three transports.
 */
export function buildRpcQuery(
  fn: SqlFunctionName,
  args: Record<string, unknown>,
  discardRows = false,
): { text: string; params: unknown[] } {
  const spec = ALL_FUNCTIONS[fn];
  const named: string[] = [];
  const params: unknown[] = [];
  for (const [name, value] of Object.entries(args)) {
    const type = spec[name];
    if (value === undefined || type === undefined) continue;
    const base = sqlType(type);
    // Drivers turn JS arrays into Postgres array literals; jsonb wants JSON text.
    params.push(base === 'jsonb' && value !== null ? JSON.stringify(value) : value);
    named.push(`p_${name} => $${params.length}::${base}`);
  }
  const call = `public.${fn}(${named.join(', ')})`;
  return {
    // The subquery names the columns: a one-column `returns table` still yields objects.
    text: discardRows
      ? `select from ${call}`
      : `select coalesce(json_agg(r), '[]'::json) as rows from (select * from ${call}) as r`,
    params,
  };
}

export function sqlRpcTransport(kind: TransportKind, sql: SqlClient): Transport {
  return {
    kind,
    sql,
    async rpc(fn, args, opts) {
      const { text, params } = buildRpcQuery(fn, args, opts?.discardRows);
      let rows: Record<string, unknown>[];
      try {
        rows =
          opts?.unbounded && kind === 'postgres'
            ? await sql.transaction(async (tx) => {
                await tx.query('set local statement_timeout = 0');
                return tx.query(text, params);
              })
            : await sql.query(text, params);
      } catch (err) {
        throw new TransportError(sqlStateOf(err), err instanceof Error ? err.message : String(err), { cause: err });
      }
      if (opts?.discardRows) return [];
      const out = rows[0]?.rows;
      // pg parses json columns; guard against a driver configured not to.
      const parsed: unknown = typeof out === 'string' ? JSON.parse(out) : out;
      if (!Array.isArray(parsed)) throw new TransportError(undefined, `${fn} did not return rows`);
      return parsed;
    },
    close: () => sql.close(),
  };
}
