/**
 * Which test files `npm run test:unit` runs: every test file that, with the test helpers it
 * imports (followed transitively through test/), never names a Postgres or Redis URL nor starts a
 * child process. Decided from the source, so a new integration test can never slip into the quick
 * run and quietly skip there: it is left out the moment it (or a helper it uses) mentions
 * TEST_DATABASE_URL, TEST_REDIS_URL or node:child_process. PGlite in memory and the loopback fakes
 * are in: they are in-process.
 * Nothing here imports vitest: vitest.unit.config.ts and test/unit-selection.test.ts use it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);

/** What makes a test an integration test: a real service, or a process of its own. */
export const INTEGRATION_MARKERS: readonly RegExp[] = [
  /\bTEST_DATABASE_URL\b/,
  /\bTEST_REDIS_URL\b/,
  /['"](node:)?child_process['"]/,
];

export interface Classified {
  file: string;
  /** Empty for a unit test; else each marker found and the file (the test or a helper) it is in. */
  reasons: string[];
}

function testFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(root, path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Relative imports of a file, resolved to .ts paths (the repo imports `./x.js` for `./x.ts`). */
function localImports(path: string, source: string): string[] {
  const specifiers = [
    ...source.matchAll(/(?:import|export)[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g),
  ];
  return specifiers.map((m) => resolve(dirname(path), (m[1] ?? m[2]!).replace(/\.js$/, '.ts')));
}

/** Every test file under test/ and src/, with why it is not a unit test (if it is not). */
export function classifyTests(root: string): Classified[] {
  const files = [...testFiles(root, 'test'), ...testFiles(root, 'src')].sort();
  const testDir = resolve(root, 'test');
  return files.map((file) => {
    const reasons: string[] = [];
    const seen = new Set<string>();
    const queue = [resolve(root, file)];
    while (queue.length) {
      const path = queue.pop()!;
      if (seen.has(path) || path === SELF) continue; // the classifier names the markers; it uses none
      seen.add(path);
      let source: string;
      try {
        source = readFileSync(path, 'utf8');
      } catch {
        continue; // not a .ts file of ours (a fixture, a JSON import)
      }
      for (const marker of INTEGRATION_MARKERS) {
        if (marker.test(source)) reasons.push(`${marker.source} in ${relative(root, path)}`);
      }
      // Follow helpers in test/ only: src/ is the code under test; what it connects to is the test's choice.
      queue.push(...localImports(path, source).filter((p) => p.startsWith(testDir + '/')));
    }
    return { file, reasons };
  });
}

export function unitTestFiles(root: string): string[] {
  return classifyTests(root)
    .filter((c) => c.reasons.length === 0)
    .map((c) => c.file);
}
