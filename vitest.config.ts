import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Node's compile cache (22.1+) for every worker and every app a test starts as a child process: the
// dependencies' JavaScript is compiled once per machine, not once per process (about 10% of an
// app's import time; the suite is CPU-bound on CI's two cores).
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'switchboard-node-compile-cache');

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
