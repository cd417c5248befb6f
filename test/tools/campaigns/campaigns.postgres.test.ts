import { describe } from 'vitest';
import { openPostgresTestPort, TEST_DATABASE_URL } from '../../helpers/db.js';
import { defineCampaignSuite } from './suite.js';

const TEST_REDIS_URL = process.env.TEST_REDIS_URL?.trim() || undefined;
if (!TEST_DATABASE_URL) console.warn('TEST_DATABASE_URL is not set: skipping the campaign tools on Postgres');
else if (!TEST_REDIS_URL)
  console.warn('TEST_REDIS_URL is not set: the campaign tools on Postgres keep thread state in memory');

describe.skipIf(!TEST_DATABASE_URL)('Postgres', () => {
  // The local Postgres has no pgvector: semantic search must fall back to full-text.
  // Thread state goes through Redis when it is configured (JSON round trips, the shared lock).
  defineCampaignSuite('campaign tools on Postgres (pg pool, no pgvector)', {
    ...(TEST_REDIS_URL ? { env: { REDIS_URL: TEST_REDIS_URL } } : {}),
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
