import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { MemoryFS, type PGlite, type Transaction } from '@electric-sql/pglite';
import { ConfigError } from '../../config/index.js';
import { createLogger, type Logger } from '../../telemetry/logger.js';
import { createEngine, ENGINE_DIR, engineModule } from './pglite-engine.js';
import type { TemplateFiles } from './pglite-template.js';
import { prepareDataDir } from './pglite-upgrade.js';
import type { SqlClient } from './types.js';

type Queryable = Pick<Transaction, 'query' | 'exec'>;

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

/** The embedded database's buffer cache unless PGLITE_SHARED_BUFFERS says otherwise. */
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

export { ENGINE_DIR, PGLITE_DATABASE, startParams } from './pglite-engine.js';

export interface PgliteOptions {
  /** Postgres's buffer cache (`shared_buffers`), e.g. `16MB`; default `sharedBuffersFor(undefined, …)`. */
  sharedBuffers?: string;
  /** In memory only: start from these files (`readTemplate`) instead of running initdb. */
  template?: TemplateFiles;
  /** Where a directory's upgrade from an older PGlite is logged (default: info to stdout). */
  log?: Logger;
  /** PGlite's engine files (default: its package's); tests point it elsewhere. */
  engineDir?: string;
}

/** The part of Emscripten's FS this needs (PGlite's types do not name it). */
interface EmscriptenFS {
  mkdirTree(path: string, mode?: number): void;
  writeFile(path: string, data: Uint8Array, opts: { canOwn: boolean }): void;
}

/**
 * PGlite's in-memory filesystem, filled with a template's data directory before Postgres starts,
 * so PGlite finds a database and skips initdb. Each file's array is handed over as the file's
 * storage (`canOwn`), not copied. The files are written when PGlite first syncs its filesystem
 * (`initialSyncFs`, after the engine is loaded and before it looks for a database), into the
 * data directory PGlite itself names (`PGDATA` in its environment).
 */
class TemplateMemoryFS extends MemoryFS {
  /** Dropped once written: a file Postgres grows gets a new array, and the old one must not stay reachable from here. */
  private template: TemplateFiles | undefined;

  constructor(template: TemplateFiles) {
    super();
    this.template = template;
  }

  override async initialSyncFs(): Promise<void> {
    await super.initialSyncFs();
    const template = this.template;
    this.template = undefined;
    if (!template) throw new Error('the template was written already');
    const mod = (this.pg as PGlite).Module as unknown as { FS: EmscriptenFS; ENV: Record<string, string | undefined> };
    const pgdata = mod.ENV.PGDATA;
    if (!pgdata) throw new Error('PGlite did not say where its data directory is (no PGDATA)');
    mod.FS.mkdirTree(pgdata, 0o700);
    for (const dir of template.directories) mod.FS.mkdirTree(`${pgdata}/${dir.replace(/\/+$/, '')}`, 0o700);
    for (const file of template.files) mod.FS.writeFile(`${pgdata}/${file.name}`, file.data, { canOwn: true });
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
    const sharedBuffers = sharedBuffersFor(opts.sharedBuffers, dataDir === undefined);
    // Checked before anything else: a missing engine file is said plainly, whatever the directory holds.
    await engineModule(opts.engineDir ?? ENGINE_DIR);
    // Under the lock: a directory an older PGlite wrote is carried over (dump, restore, compare) first.
    if (dataDir) await prepareDataDir(dataDir, opts.log ?? createLogger('info'));
    db = await createEngine(
      dataDir !== undefined ? { dataDir } : opts.template ? { fs: new TemplateMemoryFS(opts.template) } : {},
      sharedBuffers,
      opts.engineDir,
    );
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
