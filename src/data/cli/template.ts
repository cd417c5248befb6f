/**
 * npm run db:template
 *
 * Rebuilds the embedded database's template (assets/pglite-template.tar.br and .json): a new
 * PGlite data directory, migrated with the default embedding dimensions, without the databases
 * PGlite never opens, closed cleanly, archived with tar and brotli. A new embedded database unpacks it instead of running initdb
 * (src/data/transports/pglite-template.ts). Run it after adding a migration or upgrading PGlite;
 * the test suite says when it is due. Our own tar and brotli rather than PGlite's `dumpDataDir` and
 * `loadDataDir`: the same files give the same archive, under half the size of gzip -9, and unpacked as a
 * stream it leaves 35–70 MB less resident than `loadDataDir`, which wants the whole tar as one Blob
 * (measured on PGlite 0.4.6, docs/performance.md).
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { constants, createBrotliCompress } from 'node:zlib';
import { pack } from 'tar-stream';
import { parseConfig } from '../../config/index.js';
import { migrate, SCHEMA_VERSION } from '../migrate.js';
import { openPglite } from '../transports/pglite.js';
import {
  installedPgliteVersion,
  TEMPLATE_ARCHIVE,
  TEMPLATE_DIR,
  TEMPLATE_META,
  type TemplateMeta,
} from '../transports/pglite-template.js';
import { fail } from './common.js';
import { HELP_OPTION, readArgs } from '../../cli/args.js';
import { cliCommand } from '../cli-command.js';

async function main(): Promise<void> {
  // The defaults, not the environment: the template serves every installation that keeps them.
  const { EMBEDDING_DIMENSIONS } = parseConfig({ OPENAI_API_KEY: 'unused' });
  const work = await mkdtemp(join(tmpdir(), 'sb-template-'));
  const dataDir = join(work, 'pglite');
  try {
    const sql = await openPglite(dataDir);
    try {
      await migrate(sql, { embeddingDimensions: EMBEDDING_DIMENSIONS });
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
    const archive = join(TEMPLATE_DIR, TEMPLATE_ARCHIVE);
    await pipeline(
      packDir(dataDir),
      createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 24 } }),
      createWriteStream(archive),
    );
    const meta: TemplateMeta = {
      pglite: installedPgliteVersion(),
      schemaVersion: SCHEMA_VERSION,
      embeddingDimensions: EMBEDDING_DIMENSIONS,
    };
    await writeFile(join(TEMPLATE_DIR, TEMPLATE_META), `${JSON.stringify(meta, null, 2)}\n`);
    console.log(
      `Wrote ${archive} (PGlite ${meta.pglite}, schema ${meta.schemaVersion}, ${meta.embeddingDimensions} dimensions).`,
    );
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

// It takes no options: a mistyped one stops it before it rewrites the template.
const TEMPLATE_USAGE = `Usage: ${cliCommand('db:template')} (no options; rebuilds assets/pglite-template.tar.br)`;
const args = readArgs(process.argv.slice(2), HELP_OPTION);
if (!args.ok) {
  console.error(`${args.problem}\n${TEMPLATE_USAGE}`);
  process.exitCode = 2;
} else if (args.values.help) console.log(TEMPLATE_USAGE);
else main().catch(fail);
