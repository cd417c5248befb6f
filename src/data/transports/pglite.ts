import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { MemoryFS, PGlite, type PGliteOptions, type Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite/vector';
import { ConfigError } from '../../config.js';
import type { TemplateFiles } from './pglite-template.js';
import type { SqlClient } from './types.js';

type Queryable = Pick<Transaction, 'query' | 'exec'>;
/** A compiled WebAssembly module (named through PGlite: the build's `lib` has no WebAssembly types). */
type WasmModule = NonNullable<PGliteOptions['wasmModule']>;

function wrap(db: Queryable, transaction: SqlClient['transaction'], close: SqlClient['close']): SqlClient {
  return {
    async query(sql, params) {
      const res = await db.query<Record<string, unknown>>(sql, params);
      return res.rows;
    },
    async exec(sql) {
      await db.exec(sql);
    },
    transaction,
    close,
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Lock files this process holds: a second PGlite on the same directory in one process is refused too. */
const heldHere = new Set<string>();

/**
 * PGlite is one process's database: a second process opening the same directory (the
 * app and `npm run import` at once) would corrupt it. A pid file refuses that plainly.
 * A pid file naming a dead process is stale; so is one naming this very process when this
 * process does not hold it: in a container the app is always PID 1, so after a crash the
 * file names "us" and would otherwise block every restart on that volume.
 */
function lockDir(dir: string): () => void {
  // Beside the directory, not in it: PGlite takes any file inside for an existing database.
  const path = `${resolve(dir)}.pid`;
  try {
    writeFileSync(path, String(process.pid), { flag: 'wx' });
  } catch {
    const holder = Number(readFileSync(path, 'utf8'));
    const ours = holder === process.pid;
    const live = Number.isInteger(holder) && holder > 0 && (ours ? heldHere.has(path) : alive(holder));
    if (live) {
      throw new ConfigError([
        `PGLITE_DIR: the embedded database in ${dir} is in use by process ${holder}; stop it first (or use DATABASE_URL for shared access)`,
      ]);
    }
    writeFileSync(path, String(process.pid));
  }
  heldHere.add(path);
  return () => {
    heldHere.delete(path);
    rmSync(path, { force: true });
  };
}

/** The embedded database's buffer cache unless PGLITE_SHARED_BUFFERS says otherwise (see `pgliteModule`). */
const DEFAULT_SHARED_BUFFERS = '16MB';
/**
 * The same for a database in memory: its data files are already in this process's memory (the
 * in-memory filesystem), so a buffer cache only holds a second copy of them; 4 MB (512 pages)
 * took 20 MB off the 1,000-turn peak at the same CPU a turn.
 */
const DEFAULT_SHARED_BUFFERS_IN_MEMORY = '4MB';

/** The buffer cache a database gets: the setting, else the default for where its files live. */
export function sharedBuffersFor(setting: string | undefined, inMemory: boolean): string {
  return setting ?? (inMemory ? DEFAULT_SHARED_BUFFERS_IN_MEMORY : DEFAULT_SHARED_BUFFERS);
}
/** What PGlite 0.3 puts on Postgres's command line, NUL-terminated in its WebAssembly data segment. */
const BUILT_IN_SHARED_BUFFERS = 'shared_buffers=128MB\0';
/** A value that fits in place of `128MB` (5 characters at most) and in WebAssembly's 2 GB: 1MB–999MB. */
export const SHARED_BUFFERS_PATTERN = /^[1-9][0-9]{0,2}MB$/;

const modules = new Map<string, Promise<WasmModule | undefined>>();

/**
 * PGlite's WebAssembly build, compiled with `shared_buffers` set to `sharedBuffers`; undefined
 * (PGlite then loads its own build, 128 MB) when the build does not hold the setting where expected.
 *
 * Why: PGlite 0.3 starts Postgres with `-c shared_buffers=128MB` built into its binary, where
 * neither postgresql.conf nor its options reach, and Emscripten zero-fills that shared memory
 * when Postgres maps it, so all 128 MB are resident from the first query: half of an idle
 * embedded Switchboard. The embedded database is one connection over a few tens of MB of data
 * files that the OS caches anyway, so 16 MB hold its working set. The setting is a
 * NUL-terminated string in the module's data segment; the new value is written over it (same
 * length, padded with NULs) and the bytes compiled here are handed to PGlite (`wasmModule`, one
 * of its options). Found exactly once or not used at all; a test reads the setting back.
 * PGlite 0.4 takes start-up parameters (`startParams`), which replace this when we move to it.
 */
export function pgliteModule(sharedBuffers: string): Promise<WasmModule | undefined> {
  let module = modules.get(sharedBuffers);
  if (!module) {
    module = compileWithSharedBuffers(sharedBuffers);
    modules.set(sharedBuffers, module);
  }
  return module;
}

async function compileWithSharedBuffers(sharedBuffers: string): Promise<WasmModule | undefined> {
  if (!SHARED_BUFFERS_PATTERN.test(sharedBuffers)) throw new Error(`invalid shared_buffers value: ${sharedBuffers}`);
  if (`${sharedBuffers}\0` === BUILT_IN_SHARED_BUFFERS.slice('shared_buffers='.length)) return undefined;
  const dist = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  const bytes = await readFile(join(dist, 'pglite.wasm'));
  const from = Buffer.from(BUILT_IN_SHARED_BUFFERS);
  const at = bytes.indexOf(from);
  if (at < 0 || bytes.indexOf(from, at + 1) >= 0) return undefined;
  Buffer.from(`shared_buffers=${sharedBuffers}`.padEnd(from.length, '\0')).copy(bytes, at);
  return wasm.compile(bytes);
}

/** Node's WebAssembly global, which the project's `lib` (ES2023, no DOM) does not declare. */
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> } })
  .WebAssembly;

export interface PgliteOptions {
  /** Postgres's buffer cache (`shared_buffers`), e.g. `16MB`; default `sharedBuffersFor(undefined, …)`. */
  sharedBuffers?: string;
  /** In memory only: start from these files (`readTemplate`) instead of running initdb. */
  template?: TemplateFiles;
}

type EmscriptenOptions = Parameters<MemoryFS['init']>[1];
/** The part of Emscripten's FS this needs (PGlite's types do not name it). */
interface EmscriptenFS {
  mkdirTree(path: string, mode?: number): void;
  writeFile(path: string, data: Uint8Array, opts: { canOwn: boolean }): void;
}

/**
 * PGlite's in-memory filesystem, filled with a template's data directory before Postgres starts
 * (Emscripten's `preRun`), so PGlite finds a database and skips initdb. Each file's array is
 * handed over as the file's storage (`canOwn`), not copied. PGDATA is read from the arguments
 * PGlite passes to Postgres, so a PGlite that moves it still gets its files in the right place.
 */
class TemplateMemoryFS extends MemoryFS {
  /** Dropped once written: a file Postgres grows gets a new array, and the old one must not stay reachable from here. */
  private template: TemplateFiles | undefined;

  constructor(template: TemplateFiles) {
    super();
    this.template = template;
  }

  override async init(pg: PGlite, opts: EmscriptenOptions): Promise<{ emscriptenOpts: EmscriptenOptions }> {
    const { emscriptenOpts } = await super.init(pg, opts);
    const pgdata = (emscriptenOpts.arguments ?? [])
      .find((a: string) => a.startsWith('PGDATA='))
      ?.slice('PGDATA='.length);
    if (!pgdata) throw new Error('PGlite did not say where its data directory is (no PGDATA argument)');
    const fill = (mod: { FS: unknown }) => {
      const template = this.template;
      this.template = undefined;
      if (!template) throw new Error('the template was written already');
      const fs = mod.FS as EmscriptenFS;
      fs.mkdirTree(pgdata, 0o700);
      for (const dir of template.directories) fs.mkdirTree(`${pgdata}/${dir.replace(/\/+$/, '')}`, 0o700);
      for (const file of template.files) fs.writeFile(`${pgdata}/${file.name}`, file.data, { canOwn: true });
    };
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), fill] } };
  }
}

/**
 * The embedded database: PGlite with pgvector loaded. `dataDir` undefined means in
 * memory (PGLITE_MEMORY=1, tests), from `opts.template` when given; otherwise the directory is
 * created if missing.
 */
export async function openPglite(dataDir: string | undefined, opts: PgliteOptions = {}): Promise<SqlClient> {
  let unlock = () => {};
  if (dataDir) {
    mkdirSync(dirname(resolve(dataDir)), { recursive: true });
    unlock = lockDir(dataDir);
  }
  let db: PGlite;
  try {
    const wasmModule = await pgliteModule(sharedBuffersFor(opts.sharedBuffers, dataDir === undefined));
    db = await PGlite.create({
      ...(dataDir !== undefined ? { dataDir } : opts.template ? { fs: new TemplateMemoryFS(opts.template) } : {}),
      extensions: { vector },
      ...(wasmModule ? { wasmModule } : {}),
    });
  } catch (err) {
    unlock();
    throw err;
  }
  const close = async () => {
    if (!db.closed) await db.close();
    unlock();
  };
  const nested = (): never => {
    throw new Error('nested transactions are not supported');
  };
  return wrap(db, (fn) => db.transaction((tx) => fn(wrap(tx, nested, close))), close);
}
