import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';

/**
 * Which PGlite wrote an embedded data directory. A PGlite release line (0.3, 0.4, …) may change
 * the Postgres inside or the database it opens, and a directory written by one line cannot be
 * trusted to open on the next, so each directory has a marker beside it naming the version that
 * wrote it last (beside, not in it, like the lock file: Postgres owns what is inside). A directory
 * without one was written before markers existed, by PGlite 0.3.
 */

/** The installed PGlite's version (its package.json is not exported, so found beside its entry point). */
export function installedPgliteVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === '@electric-sql/pglite' && pkg.version) return pkg.version;
  }
  throw new Error('cannot find the version of @electric-sql/pglite');
}

/** What a directory without a marker was written by: every release before markers was 0.3. */
export const UNMARKED_VERSION = '0.3';

const marker = z.object({ pglite: z.string().regex(/^\d+\.\d+(\.\d+)?/) });

/** The marker's file: `<dir>.pglite-version` (JSON). */
export function versionMarkerPath(dataDir: string): string {
  return `${resolve(dataDir)}.pglite-version`;
}

/** The PGlite version that last wrote `dataDir`, or null when the directory has no marker. */
export function readVersionMarker(dataDir: string): string | null {
  const path = versionMarkerPath(dataDir);
  if (!existsSync(path)) return null;
  return marker.parse(JSON.parse(readFileSync(path, 'utf8'))).pglite;
}

/** Records that `version` wrote `dataDir` (written aside and renamed: never half a file). */
export function writeVersionMarker(dataDir: string, version = installedPgliteVersion()): void {
  const path = versionMarkerPath(dataDir);
  writeFileSync(`${path}.tmp`, `${JSON.stringify({ pglite: version })}\n`);
  renameSync(`${path}.tmp`, path);
}

/**
 * A version's release line: data directories of one line open on any version of it. Before 1.0
 * that is major.minor (0.3, 0.4: 0.5 is Postgres 18), after it the major.
 */
export function releaseLine(version: string): string {
  const [major = '0', minor = '0'] = version.split('.');
  return major === '0' ? `0.${minor}` : major;
}

/** Negative, zero or positive as release line `a` is older than, the same as, or newer than `b`. */
export function compareLines(a: string, b: string): number {
  const parts = (line: string) => line.split('.').map(Number);
  const [pa, pb] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
