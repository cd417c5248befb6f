import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Suites share one Postgres and one Redis; files run in parallel but use their own
    // schemas / key prefixes.
    pool: 'forks',
    // Most of a file's time is spent waiting on sockets, child processes and timers, not on the
    // CPU: four files at a time on CI's two cores take the suite from ~19 to ~7 minutes (vitest's
    // default is one fewer than the cores). VITEST_MAX_WORKERS overrides it.
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS) || 4,
    // The fake LLM is strict: every open fake is verified after each test.
    setupFiles: ['test/helpers/strict-fakes.ts'],
    // A Redis database of the run's own, emptied at the end (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
  },
});
