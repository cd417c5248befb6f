import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite/vector';
import { ConfigError } from '../../config.js';
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

/**
 * The embedded database: PGlite with pgvector loaded. `dataDir` undefined means in
 * memory (PGLITE_MEMORY=1, tests); otherwise the directory is created if missing.
 */
export async function openPglite(dataDir: string | undefined): Promise<SqlClient> {
  let unlock = () => {};
  if (dataDir) {
    mkdirSync(dirname(resolve(dataDir)), { recursive: true });
    unlock = lockDir(dataDir);
  }
  let db: PGlite;
  try {
    db = await PGlite.create(dataDir ?? 'memory://', { extensions: { vector } });
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
