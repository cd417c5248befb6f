import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';
import { unitTestFiles } from './test/helpers/unit-selection.js';

// `npm run test:unit`: the tests that need no Postgres, no Redis and no child process (see
// test/helpers/unit-selection.ts), for a quick loop. `npm test` stays the whole suite.
// Without the service URLs, a test that uses one anyway fails or skips visibly instead of
// reaching a real service; test/unit-selection.test.ts checks the selection itself.
delete process.env.TEST_DATABASE_URL;
delete process.env.TEST_REDIS_URL;

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // Replaces the base include list (vitest's mergeConfig would append to it).
    include: unitTestFiles(root),
    env: { TEST_DATABASE_URL: '', TEST_REDIS_URL: '' },
  },
});
