import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Suites share one Postgres and one Redis; files run in parallel but use their own
    // schemas / key prefixes.
    pool: 'forks',
    // The fake LLM is strict: every open fake is verified after each test.
    setupFiles: ['test/helpers/strict-fakes.ts'],
    // A Redis database of the run's own, emptied at the end (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
  },
});
