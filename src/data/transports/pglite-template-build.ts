/**
 * Builds an embedded database template (see pglite-template.ts): a new PGlite data directory,
 * migrated with the given embedding dimensions, without the databases PGlite never opens, closed
 * cleanly, archived with tar and brotli into `outDir`. `npm run db:template` writes the built-in
 * one (assets/); the test suite builds one for its own dimensions once per run (PGLITE_TEMPLATE_DIR).
 */
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { constants, createBrotliCompress } from 'node:zlib';
import { pack } from 'tar-stream';
import { migrate, SCHEMA_VERSION } from '../migrate.js';
import { openPglite } from './pglite.js';
import { installedPgliteVersion, TEMPLATE_ARCHIVE, TEMPLATE_META, type TemplateMeta } from './pglite-template.js';

export async function buildTemplate(outDir: string, embeddingDimensions: number): Promise<TemplateMeta> {
  const work = await mkdtemp(join(tmpdir(), 'sb-template-'));
  const dataDir = join(work, 'pglite');
  try {
    const sql = await openPglite(dataDir);
    try {
      await migrate(sql, { embeddingDimensions });
      // Only template1 is ever opened (PGLITE_DATABASE, where PGlite 0.3 kept everything too);
      // initdb's `postgres` and `template0` are half the data directory, which a database in
      // memory holds as RSS.
      await sql.exec('drop database postgres');
      await sql.exec('alter database template0 is_template false');
      await sql.exec('drop database template0');
      // No VACUUM: it would record every table as empty (reltuples 0), and the planner would then
      // pick plans for empty tables when the first start seeds the demo data (three times slower).
      await sql.exec('checkpoint');
    } finally {
      await sql.close();
    }
    await mkdir(outDir, { recursive: true });
    await pipeline(
      packDir(dataDir),
      createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 24 } }),
      createWriteStream(join(outDir, TEMPLATE_ARCHIVE)),
    );
    const meta: TemplateMeta = { pglite: installedPgliteVersion(), schemaVersion: SCHEMA_VERSION, embeddingDimensions };
    await writeFile(join(outDir, TEMPLATE_META), `${JSON.stringify(meta, null, 2)}\n`);
    return meta;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** A tar of the directory's folders and files, in name order, without owners or times (the same files give the same archive). */
function packDir(root: string) {
  const tarball = pack();
  void (async () => {
    const entries = await readdir(root, { recursive: true, withFileTypes: true });
    const names = entries
      .map((e) => ({ name: relative(root, join(e.parentPath, e.name)), dir: e.isDirectory() }))
      // The pid file PGlite leaves behind names the process that built the template.
      .filter((e) => e.name !== 'postmaster.pid')
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    const epoch = new Date(0);
    for (const { name, dir } of names) {
      if (dir) tarball.entry({ name, type: 'directory', mode: 0o700, mtime: epoch });
      else tarball.entry({ name, mode: 0o600, mtime: epoch }, await readFile(join(root, name)));
    }
    tarball.finalize();
  })().catch((err: unknown) => tarball.destroy(err instanceof Error ? err : new Error(String(err))));
  return tarball;
}
