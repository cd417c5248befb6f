import { fork } from 'node:child_process';
import { existsSync, renameSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../config/index.js';
import { scrubSecrets, type Logger } from '../../telemetry/logger.js';
import {
  compareLines,
  installedPgliteVersion,
  readVersionMarker,
  releaseLine,
  UNMARKED_VERSION,
  writeVersionMarker,
} from './pglite-version.js';
import { canCopyFrom, type CopyJob, type CopyReply, type CopyResult } from './pglite-upgrade-copy.js';

/**
 * Carries an embedded data directory written by an older PGlite release line over to the
 * installed one, when the app (or a CLI) opens it, under the directory's lock: the old engine
 * dumps it (pg_dump from `@electric-sql/pglite-tools`), the installed one restores the dump into
 * a new directory, every table's row count is compared, and only then is the new directory put in
 * place, the old one kept beside it as a backup. A line's data directory may not open on the next
 * at all (0.5 is Postgres 18) or open the wrong database (0.4 opens `postgres`, 0.3 kept
 * everything in `template1`), so a logical dump and restore is the one path that serves every
 * move. The old engine is loaded only then, in a child process (pglite-upgrade-copy.ts).
 */

/** The directory a verified upgrade waits in before it is swapped into place. */
function readyPath(dir: string): string {
  return `${dir}.upgraded`;
}

/** Where the directory an older line wrote is kept: named by that line, never over an earlier backup. */
function backupPath(dir: string, from: string): string {
  const base = `${dir}.pglite-${from}.backup`;
  return existsSync(base) ? `${base}-${Date.now()}` : base;
}

/**
 * Makes `dataDir` ready for the installed PGlite to open: a new directory gets the marker; one an
 * older line wrote is upgraded; one a newer line wrote is refused (it would not open). Called
 * with the directory locked.
 */
export async function prepareDataDir(dataDir: string, log: Logger): Promise<void> {
  const dir = resolve(dataDir);
  const installed = installedPgliteVersion();
  finishSwap(dir, installed, log);
  if (!existsSync(join(dir, 'PG_VERSION'))) {
    // A new database (PGlite runs initdb into it): what writes it is the installed PGlite.
    writeVersionMarker(dir, installed);
    return;
  }
  const wrote = readVersionMarker(dir) ?? UNMARKED_VERSION;
  const order = compareLines(releaseLine(wrote), releaseLine(installed));
  if (order === 0) {
    if (wrote !== installed) writeVersionMarker(dir, installed);
    return;
  }
  if (order > 0) {
    throw new ConfigError([
      `PGLITE_DIR: the embedded database in ${dir} was written by PGlite ${wrote}, newer than this build's ${installed}; ` +
        'run the newer Switchboard, or restore the backup the upgrade left beside it',
    ]);
  }
  await upgrade(dir, wrote, installed, log);
}

/** The tables whose counts differ (or that one side lacks), as `table: before → after`. */
function countDifferences(before: Map<string, string>, after: Map<string, string>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names]
    .filter((name) => before.get(name) !== after.get(name))
    .map((name) => `${name}: ${before.get(name) ?? 'missing'} → ${after.get(name) ?? 'missing'}`);
}

async function upgrade(dir: string, from: string, to: string, log: Logger): Promise<void> {
  if (!canCopyFrom(releaseLine(from))) {
    throw new ConfigError([
      `PGLITE_DIR: the embedded database in ${dir} was written by PGlite ${from}, which this build cannot upgrade from; ` +
        'upgrade through an earlier Switchboard release first',
    ]);
  }
  const started = Date.now();
  const staging = `${dir}.upgrade-${process.pid}`;
  try {
    await rm(staging, { recursive: true, force: true });
    const job = { dir, staging, dump: `${staging}.sql`, line: releaseLine(from) };
    const dumped = await copyInChild({ ...job, step: 'dump' });
    const restored = await copyInChild({ ...job, step: 'restore' });
    await rm(job.dump, { force: true });
    const [before, after] = [new Map(dumped.counts), new Map(restored.counts)];
    const differences = countDifferences(before, after);
    if (differences.length > 0) throw new Error(`row counts differ after the restore (${differences.join('; ')})`);

    renameSync(staging, readyPath(dir));
    const backup = finishSwap(dir, to, log, from);
    const rows = [...after.values()].reduce((sum, n) => sum + Number(n), 0);
    log.info(
      {
        dataDir: dir,
        from: dumped.version,
        to,
        tables: after.size,
        rows,
        backup,
        ms: Date.now() - started,
        peakRssMb: Math.max(dumped.peakRssMb, restored.peakRssMb),
      },
      `upgraded the embedded database from PGlite ${dumped.version} to ${to}: ${after.size} tables, ${rows} rows, ` +
        `every count the same; the old directory is kept at ${backup}`,
    );
  } catch (err) {
    await rm(staging, { recursive: true, force: true }).catch(() => {});
    await rm(`${staging}.sql`, { force: true }).catch(() => {});
    const reason = scrubSecrets(err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err));
    log.error({ dataDir: dir, from, to, reason }, 'could not upgrade the embedded database; it is left as it was');
    throw new ConfigError([
      `PGLITE_DIR: could not upgrade the embedded database in ${dir} from PGlite ${from} to ${to} (${reason}); ` +
        `it is left as it was. Run the previous Switchboard on it, or free space and start again`,
    ]);
  }
}

/**
 * Runs a step of the copy (pglite-upgrade-copy.ts) in a child process. Two engines, pg_dump and
 * initdb in the app's process peaked at 790 MB and left 375 MB resident after (the old engine's
 * 128 MB buffer cache, zero-filled; WebAssembly memories that never shrink); in a child, all of it
 * is returned when it exits, and the app runs as lean as on any other day. Under tsx (`npm start`,
 * tests) the child runs the TypeScript source through tsx too; from dist/, the compiled file.
 */
function copyInChild(job: CopyJob): Promise<CopyResult> {
  const self = fileURLToPath(import.meta.url);
  const file = join(dirname(self), `pglite-upgrade-copy${extname(self)}`);
  const child = fork(file, [JSON.stringify(job)], {
    execArgv: extname(self) === '.ts' ? ['--import', import.meta.resolve('tsx')] : [],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  return new Promise((resolvePromise, reject) => {
    let reply: CopyReply | undefined;
    child.on('message', (message) => {
      reply = message as CopyReply;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (reply?.ok) resolvePromise(reply);
      else if (reply) reject(new Error(reply.error));
      else
        reject(
          new Error(
            `the upgrade's process ended (${signal ?? `exit code ${code}`}) ${stderr.trim().split('\n').pop() ?? ''}`,
          ),
        );
    });
  });
}

/**
 * Puts a verified upgrade (`<dir>.upgraded`) in place, if one is waiting: the old directory to
 * its backup, the marker, the new directory in. Each step is a rename or a marker write, and a
 * start after a crash anywhere between them finishes the rest here. Returns the backup's path
 * (null when nothing was waiting or no old directory was left to keep).
 */
function finishSwap(dir: string, installed: string, log: Logger, from?: string): string | null {
  const ready = readyPath(dir);
  if (!existsSync(ready)) return null;
  let backup: string | null = null;
  if (existsSync(dir)) {
    backup = backupPath(dir, from ?? readVersionMarker(dir) ?? UNMARKED_VERSION);
    renameSync(dir, backup);
  }
  writeVersionMarker(dir, installed);
  renameSync(ready, dir);
  if (!from)
    log.info({ dataDir: dir, backup }, 'finished an embedded database upgrade an earlier start was interrupted in');
  return backup;
}
