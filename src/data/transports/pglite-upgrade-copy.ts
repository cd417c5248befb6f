import { readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { createEngine } from './pglite-engine.js';
import { installedPgliteVersion } from './pglite-version.js';

/**
 * The copy half of an embedded database upgrade, run by pglite-upgrade.ts in child processes: the
 * older engine opens the old directory and pg_dump (`@electric-sql/pglite-tools`, the installed
 * line's) dumps it; the installed engine restores the dump into a new directory; each side's row
 * counts go back to the parent, which compares them and swaps the directories.
 */

/**
 * What the parent asks, one step per child: `dump` the old directory `dir` (written by release
 * line `line`) into the file `dump`; `restore` that file into the new directory `staging`. Two
 * children, not one: each engine's memory is returned before the other's is taken (the old
 * engine alone peaks near 390 MB with its 128 MB buffer cache; both in one process, 630 MB).
 */
export interface CopyJob {
  step: 'dump' | 'restore';
  dir: string;
  staging: string;
  dump: string;
  line: string;
}

/** Each table's row count (as text) on the side the step read, and the engine's version. */
export interface CopyResult {
  ok: true;
  version: string;
  counts: [string, string][];
  /** The child's peak RSS, in MB: what an upgrade needs beside the app. */
  peakRssMb: number;
}

export type CopyReply = CopyResult | { ok: false; error: string };

/** The few calls the copy makes on either engine (PGlite's API, the same in 0.3 and 0.4). */
interface EngineDb {
  query<T>(sql: string): Promise<{ rows: T[] }>;
  exec(sql: string): Promise<unknown>;
  close(): Promise<void>;
}

interface OlderEngine {
  version: string;
  open(dataDir: string): Promise<EngineDb>;
  /** How pg_dump connects to it (what its startup asks for). */
  connection: string;
}

/**
 * The older release lines a directory can come from, each the old package installed under an
 * alias and imported only here. To move to a new line: install it as `@electric-sql/pglite` and
 * its matching `@electric-sql/pglite-tools`, the line it replaces under an alias (e.g.
 * `@electric-sql/pglite-v04`), and add that line here.
 */
const OLDER_ENGINES: Record<string, () => Promise<OlderEngine>> = {
  '0.3': async () => {
    const [{ PGlite }, { vector }] = await Promise.all([
      import('@electric-sql/pglite-v03'),
      import('@electric-sql/pglite-v03/vector'),
    ]);
    return {
      version: '0.3.16',
      // 0.3 opened `template1` (its default), so that is what it dumps.
      open: (dataDir) => PGlite.create({ dataDir, extensions: { vector } }),
      // PGlite 0.3 asks a connecting client for a password: the one its own bundled .pgpass gives
      // the user postgres (not a secret: every PGlite 0.3 has it). The pg_dump of a later
      // pglite-tools carries no .pgpass that matches, so it is given here.
      connection: 'host=localhost dbname=postgres user=postgres password=md53175bce1d3201d16594cebf9d7eb3f9d',
    };
  },
};

/** Whether a directory written by release line `line` can be copied over. */
export function canCopyFrom(line: string): boolean {
  return line in OLDER_ENGINES;
}

/** Every user table (schema-qualified) and its row count. */
async function rowCounts(db: EngineDb): Promise<[string, string][]> {
  const { rows: tables } = await db.query<{ name: string }>(
    `select quote_ident(n.nspname) || '.' || quote_ident(c.relname) as name
     from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema')
       and n.nspname not like 'pg\\_%'
     order by 1`,
  );
  const counts: [string, string][] = [];
  for (const { name } of tables) {
    const { rows } = await db.query<{ n: string }>(`select count(*)::text as n from ${name}`);
    counts.push([name, rows[0]?.n ?? '0']);
  }
  return counts;
}

/** One step of the copy (see `CopyJob`). */
export async function copyStep(job: CopyJob): Promise<CopyResult> {
  const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);
  if (job.step === 'dump') {
    const loadEngine = OLDER_ENGINES[job.line];
    if (!loadEngine) throw new Error(`no engine for PGlite ${job.line}`);
    const engine = await loadEngine();
    const { pgDump } = await import('@electric-sql/pglite-tools/pg_dump');
    const old = await engine.open(job.dir);
    try {
      const counts = await rowCounts(old);
      // pgDump is typed for the installed PGlite; it needs only query, exec and the raw protocol, which 0.3 has.
      const pg = old as unknown as Parameters<typeof pgDump>[0]['pg'];
      const file = await pgDump({ pg, args: ['--no-owner', '--no-privileges', '-d', engine.connection] });
      await writeFile(job.dump, await file.text(), { mode: 0o600 });
      return { ok: true, version: engine.version, counts, peakRssMb: peakRssMb() };
    } finally {
      await old.close();
    }
  }
  // The buffer cache as on disk by default: the restore is one connection writing a new directory.
  const restored = await createEngine({ dataDir: job.staging }, '16MB');
  try {
    await restored.exec(await readFile(job.dump, 'utf8'));
    const counts = await rowCounts(restored);
    return { ok: true, version: installedPgliteVersion(), counts, peakRssMb: peakRssMb() };
  } finally {
    await restored.close();
  }
}

/** Run as the child: the job is the first argument, the reply goes back over IPC. */
async function main(): Promise<void> {
  const send = (reply: CopyReply) =>
    new Promise<void>((done) => (process.send ? process.send(reply, () => done()) : done()));
  try {
    await send(await copyStep(JSON.parse(process.argv[2] ?? '{}') as CopyJob));
  } catch (err) {
    await send({ ok: false, error: err instanceof Error ? err.message : String(err) });
  }
  process.exit(0);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
