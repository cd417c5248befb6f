import { openDataPort, type AdminDataPort } from '../../src/data/index.js';
import type { SqlClient } from '../../src/data/transports/types.js';
import { silentLogger } from '../../src/telemetry/logger.js';
import { startFakePostgrest } from '../fakes/postgrest.js';
import {
  noticeWithoutPostgres,
  openPgliteTestPort,
  openPostgresTestPort,
  testConfig,
  TEST_DATABASE_URL,
} from './db.js';

/** A data port (no demo data), the SQL underneath it (to read rows themselves) and how to close both. */
export interface SqlBackedStore {
  data: AdminDataPort;
  sql: SqlClient;
  close(): Promise<void>;
}

/**
 * The three transports over an empty schema, each with the SQL underneath: PGlite; supabase-js
 * through the loopback PostgREST fake over PGlite (the third transport's rpc calls and numeric
 * JSON); and the real Postgres when TEST_DATABASE_URL is set (else a notice naming `what`).
 */
export function sqlBackedStores(what: string): [string, () => Promise<SqlBackedStore>][] {
  const stores: [string, () => Promise<SqlBackedStore>][] = [
    [
      'PGlite',
      async () => {
        const data = await openPgliteTestPort({ seedDemo: false });
        return { data, sql: data.transport.sql!, close: () => data.close() };
      },
    ],
    [
      'Supabase (PostgREST fake over PGlite)',
      async () => {
        const backing = await openPgliteTestPort({ seedDemo: false });
        const sql = backing.transport.sql!;
        const key = 'test-service-role-key';
        const fake = await startFakePostgrest({ query: (text, params) => sql.query(text, params), serviceKey: key });
        const data = await openDataPort(
          testConfig({ SUPABASE_URL: fake.url, SUPABASE_SERVICE_ROLE_KEY: key }),
          silentLogger(),
          { tenantCacheMs: 0 },
        );
        return {
          data,
          sql,
          close: async () => {
            await data.close();
            await fake.close();
            await backing.close();
          },
        };
      },
    ],
  ];
  if (TEST_DATABASE_URL)
    stores.push([
      'Postgres',
      async () => {
        const { port, db } = await openPostgresTestPort({ seed: false });
        return { data: port, sql: port.transport.sql!, close: () => port.close().then(() => db.drop()) };
      },
    ]);
  else noticeWithoutPostgres(what);
  return stores;
}
