import { describe } from 'vitest';
import { openPostgresTestPort, TEST_DATABASE_URL } from '../helpers/db.js';
import { defineFunctionSuite } from './suite.js';

if (!TEST_DATABASE_URL) console.warn('TEST_DATABASE_URL is not set: skipping the SQL function suite on Postgres');

describe.skipIf(!TEST_DATABASE_URL)('Postgres', () => {
  // The Debian Postgres on CI has no pgvector: the migrations still apply and semantic
  // search reports itself unavailable.
  defineFunctionSuite('SQL functions on Postgres (pg pool)', {
    async open() {
      const { port, db } = await openPostgresTestPort();
      return {
        port,
        close: async () => {
          await port.close();
          await db.drop();
        },
      };
    },
  });
});
