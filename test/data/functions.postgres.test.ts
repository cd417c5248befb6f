import { describe } from 'vitest';
import { noticeWithoutPostgres, openPostgresTestPort, TEST_DATABASE_URL } from '../helpers/db.js';
import { defineFunctionSuite } from './suite.js';

noticeWithoutPostgres('the SQL function suite');

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
