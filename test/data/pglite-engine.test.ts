/**
 * PGlite's engine files: a missing one (pglite.wasm, the file bundle, initdb) stops the start with
 * one message that says what is missing and what to do, not a stack from inside Emscripten; there
 * is no database without them to fall back to. (A damaged template falls back to initdb: see
 * pglite-template.test.ts.)
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/index.js';
import { ENGINE_DIR, openPglite } from '../../src/data/transports/pglite.js';

const work = mkdtempSync(join(tmpdir(), 'sb-pglite-engine-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the embedded database engine', () => {
  it('missing pglite.wasm: one clear message naming the file and the fix, and the directory stays unlocked', async () => {
    const engineDir = join(work, 'dist');
    rmSync(engineDir, { recursive: true, force: true });
    mkdirSync(engineDir);
    copyFileSync(join(ENGINE_DIR, 'pglite.data'), join(engineDir, 'pglite.data'));
    copyFileSync(join(ENGINE_DIR, 'initdb.wasm'), join(engineDir, 'initdb.wasm'));
    const dataDir = join(work, 'db');
    const err = await openPglite(dataDir, { engineDir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(
      `the embedded database engine is incomplete: pglite.wasm missing from ${engineDir}; reinstall the dependencies (npm ci)`,
    );
    // The lock was released: the same directory opens with the real engine.
    await (await openPglite(dataDir)).close();
  }, 120_000);
});
