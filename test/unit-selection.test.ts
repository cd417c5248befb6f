/** `npm run test:unit` must never quietly take in a test that needs a real service or a process. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { classifyTests, INTEGRATION_MARKERS, unitTestFiles } from './helpers/unit-selection.js';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('the unit test selection', () => {
  it('leaves out every test that names a service URL or starts a process, itself or through a helper', () => {
    const units = unitTestFiles(root);
    expect(units.length).toBeGreaterThan(20);
    for (const integration of [
      'test/state/kv.test.ts', // Redis
      'test/data/schema.test.ts', // Postgres
      'test/main.test.ts', // a child process
      'test/adapters/discord/conversations.test.ts', // Postgres through test/helpers/db.ts
    ]) {
      expect(units).not.toContain(integration);
    }
    expect(units).toContain('test/provider/openai.test.ts');
    expect(units).toContain('test/unit-selection.test.ts');
  });

  it('follows helpers transitively and says why a file is left out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'unit-selection-'));
    mkdirSync(join(dir, 'test', 'helpers'), { recursive: true });
    mkdirSync(join(dir, 'src'));
    // Spelled in pieces, so this file does not itself look like an integration test.
    const redisUrl = ['TEST', 'REDIS', 'URL'].join('_');
    const childProcess = ['node:child', 'process'].join('_');
    writeFileSync(join(dir, 'test/helpers/deep.ts'), `export const url = process.env['${redisUrl}'];\n`);
    writeFileSync(join(dir, 'test/helpers/middle.ts'), "export { url } from './deep.js';\n");
    writeFileSync(join(dir, 'test/a.test.ts'), "import { url } from './helpers/middle.js';\n");
    writeFileSync(join(dir, 'test/b.test.ts'), `import { spawn } from '${childProcess}';\n`);
    writeFileSync(join(dir, 'test/c.test.ts'), "import { it } from 'vitest';\nit('is quick', () => {});\n");
    const [, redis, child] = INTEGRATION_MARKERS.map((m) => m.source);
    expect(classifyTests(dir)).toEqual([
      { file: 'test/a.test.ts', reasons: [`${redis} in test/helpers/deep.ts`] },
      { file: 'test/b.test.ts', reasons: [`${child} in test/b.test.ts`] },
      { file: 'test/c.test.ts', reasons: [] },
    ]);
  });
});
