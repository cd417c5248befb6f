import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite/vector';
import { ConfigError } from '../../config/index.js';

/**
 * The installed PGlite, started the way Switchboard starts it: the database named, pgvector
 * loaded, the buffer cache on Postgres's command line, initdb's WAL segments small, and its
 * WebAssembly compiled once per process from files checked to be there.
 */

/** A compiled WebAssembly module (named through PGlite: the build's `lib` has no WebAssembly types). */
type WasmModule = NonNullable<PGliteOptions['pgliteWasmModule']>;

/**
 * The database Switchboard keeps its data in. PGlite 0.3 always opened `template1`; 0.4 opens
 * `postgres` unless told, so it is named: every data directory made so far (and the template,
 * which holds only this database) keeps its data here.
 */
export const PGLITE_DATABASE = 'template1';

/**
 * Postgres's command line: PGlite's own defaults plus the buffer cache. PGlite builds in
 * `shared_buffers=128MB`, and Emscripten zero-fills that shared memory when Postgres maps it, so
 * all of it is resident from the first query (half of an idle embedded Switchboard); the embedded
 * database is one connection over a few tens of MB of data files that the OS caches anyway.
 * (PGlite 0.3 took no parameters: its binary was patched; 0.4 takes `startParams`.)
 */
export function startParams(sharedBuffers: string): string[] {
  return [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffers}`];
}

/**
 * initdb's options beyond PGlite's own: 1 MB WAL segments, as PGlite 0.3 made them. 0.4 keeps
 * Postgres's 16 MB, and a new database starts with one whole segment: 16 MB more in the template,
 * all of it resident for a database in memory.
 */
const INITDB_PARAMS = ['--wal-segsize=1'];

/** Where PGlite's engine files are: its package's `dist/`, beside its entry point. */
export const ENGINE_DIR = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
/** The files PGlite loads to start: Postgres, its file bundle, and initdb (for a new database). */
const ENGINE_FILES = ['pglite.wasm', 'pglite.data', 'initdb.wasm'];

const modules = new Map<string, Promise<WasmModule>>();

/**
 * PGlite's Postgres build, compiled once per process (each database opened after the first, as
 * tests and the CLIs do, skips a compile of 10 MB of WebAssembly). A missing engine file is one
 * plain message, not a stack from inside Emscripten: there is nothing to fall back to without it.
 */
export function engineModule(engineDir: string): Promise<WasmModule> {
  const missing = ENGINE_FILES.filter((file) => !existsSync(join(engineDir, file)));
  if (missing.length > 0) {
    return Promise.reject(
      new ConfigError([
        `the embedded database engine is incomplete: ${missing.join(', ')} missing from ${engineDir}; ` +
          'reinstall the dependencies (npm ci), or use DATABASE_URL',
      ]),
    );
  }
  const path = join(engineDir, 'pglite.wasm');
  let module = modules.get(path);
  if (!module) {
    module = readFile(path).then((bytes) => wasm.compile(bytes));
    // A failed compile (a damaged file) is not kept: the next open reads the file again.
    module.catch(() => modules.delete(path));
    modules.set(path, module);
  }
  return module;
}

/** Node's WebAssembly global, which the project's `lib` (ES2023, no DOM) does not declare. */
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> } })
  .WebAssembly;

/** A PGlite on `where` (a directory, a filesystem, or neither: in memory), as Switchboard opens one. */
export async function createEngine(
  where: Pick<PGliteOptions, 'dataDir' | 'fs'>,
  sharedBuffers: string,
  engineDir = ENGINE_DIR,
): Promise<PGlite> {
  const pgliteWasmModule = await engineModule(engineDir);
  return PGlite.create({
    ...where,
    database: PGLITE_DATABASE,
    extensions: { vector },
    pgliteWasmModule,
    startParams: startParams(sharedBuffers),
    initDbStartParams: INITDB_PARAMS,
  });
}
