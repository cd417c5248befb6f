import type { AdminDataPort } from '../../src/data/index.js';

/** Rows of a query on the test database, typed by the caller (the assertions check them). */
export async function sqlRows<T>(port: AdminDataPort, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await port.transport.sql!.query(sql, params)) as T[];
}
