import {
  closeSync,
  createReadStream,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  writeSync,
} from 'node:fs';
import { mkdir, rename, rm, rmdir } from 'node:fs/promises';
import { isAbsolute, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBrotliDecompress } from 'node:zlib';
import { z } from 'zod';
import type { Logger } from '../../telemetry/logger.js';
import { installedPgliteVersion, writeVersionMarker } from './pglite-version.js';

export { installedPgliteVersion } from './pglite-version.js';

/**
 * A new embedded database starts from a template: the data directory PGlite leaves after
 * `initdb` and the migrations, closed cleanly, archived (tar + brotli, about 1 MB) under
 * `assets/`. Unpacking it takes a fraction of a second where `initdb` takes about 1.5 s, which
 * is most of a first start. `npm run db:template` rebuilds it; a test fails when it falls behind
 * the migrations or the installed PGlite.
 *
 * The template is used only when it fits: the same PGlite version, the same embedding
 * dimensions, a schema no newer than this code's (newer migrations are applied on top as
 * usual). Otherwise, or if unpacking fails, the database is created by `initdb` as before.
 */
export const TEMPLATE_DIR = fileURLToPath(new URL('../../../assets/', import.meta.url));
export const TEMPLATE_ARCHIVE = 'pglite-template.tar.br';
export const TEMPLATE_META = 'pglite-template.json';

export const templateMeta = z.object({
  pglite: z.string(),
  schemaVersion: z.string(),
  embeddingDimensions: z.number().int().positive(),
});
export type TemplateMeta = z.infer<typeof templateMeta>;

/** Why the template cannot serve a new database with these settings, or null when it can. */
function templateMismatch(
  meta: TemplateMeta,
  want: { embeddingDimensions: number; schemaVersion: string },
): string | null {
  const pglite = installedPgliteVersion();
  if (meta.pglite !== pglite) return `it was built with PGlite ${meta.pglite}, this is ${pglite}`;
  if (meta.embeddingDimensions !== want.embeddingDimensions) {
    return `it has ${meta.embeddingDimensions} embedding dimensions, EMBEDDING_DIMENSIONS is ${want.embeddingDimensions}`;
  }
  if (meta.schemaVersion > want.schemaVersion)
    return `its schema (${meta.schemaVersion}) is newer than this code's (${want.schemaVersion})`;
  return null;
}

/** Whether `templateDir` holds a template that fits `want` (nothing logged: for a further template tried first). */
export function templateFits(
  templateDir: string,
  want: { embeddingDimensions: number; schemaVersion: string },
): boolean {
  try {
    const metaFile = join(templateDir, TEMPLATE_META);
    if (!existsSync(metaFile) || !existsSync(join(templateDir, TEMPLATE_ARCHIVE))) return false;
    return templateMismatch(templateMeta.parse(JSON.parse(readFileSync(metaFile, 'utf8'))), want) === null;
  } catch {
    return false;
  }
}

/**
 * The template's archive and description when both exist and it fits `want`; null otherwise,
 * saying why (the caller creates the database with initdb). Throws when the description cannot
 * be read.
 */
function fittingTemplate(
  templateDir: string,
  want: { embeddingDimensions: number; schemaVersion: string },
  log: Logger,
): { archive: string; meta: TemplateMeta } | null {
  const archive = join(templateDir, TEMPLATE_ARCHIVE);
  const metaFile = join(templateDir, TEMPLATE_META);
  if (!existsSync(archive) || !existsSync(metaFile)) {
    log.debug({ templateDir }, 'no embedded database template; creating the database with initdb');
    return null;
  }
  const meta = templateMeta.parse(JSON.parse(readFileSync(metaFile, 'utf8')));
  const mismatch = templateMismatch(meta, want);
  if (mismatch) {
    log.info({ reason: mismatch }, 'the embedded database template does not fit; creating the database with initdb');
    return null;
  }
  return { archive, meta };
}

function isEmptyOrMissing(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0;
}

/**
 * Creates `dataDir` from the template when the directory is new and the template fits.
 * True when it did; false when the directory already holds a database, the template does not
 * fit, or unpacking failed (logged): the caller's `initdb` then creates it. The archive is
 * unpacked beside the directory and renamed into place, so a crash midway leaves no half
 * database behind.
 */
export async function createFromTemplate(
  dataDir: string,
  want: { embeddingDimensions: number; schemaVersion: string },
  log: Logger,
  templateDir = TEMPLATE_DIR,
): Promise<boolean> {
  const dir = resolve(dataDir);
  if (!isEmptyOrMissing(dir)) return false;
  const staging = `${dir}.template-${process.pid}`;
  try {
    const template = fittingTemplate(templateDir, want, log);
    if (!template) return false;
    if (existsSync(dir)) {
      // Empty (checked above). A mount point cannot be replaced by a rename: initdb fills it in place.
      const removed = await rmdir(dir).then(
        () => true,
        () => false,
      );
      if (!removed) {
        log.info(
          { dataDir: dir },
          'the embedded database directory is a mount point; creating the database with initdb',
        );
        return false;
      }
    }
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    await unpack(template.archive, staging);
    // The marker first: a directory without one is taken for one PGlite 0.3 wrote.
    writeVersionMarker(dir, template.meta.pglite);
    await rename(staging, dir);
    log.debug(
      { dataDir: dir, schemaVersion: template.meta.schemaVersion },
      'embedded database created from the template',
    );
    return true;
  } catch (err) {
    log.warn(
      { err, dataDir: dir },
      'could not create the embedded database from its template; creating it with initdb',
    );
    await rm(staging, { recursive: true, force: true }).catch(() => {});
    return false;
  }
}

/** One entry of the template: a directory, or a file whose bytes arrive as chunks. */
type TemplateEntry =
  { type: 'directory'; name: string } | { type: 'file'; name: string; size: number; chunks: AsyncIterable<Buffer> };

/**
 * The template's entries in order, streamed (the archive is never whole in memory: 29 MB
 * unpacked, which a process keeps as RSS). tar-stream parses; only directories and regular
 * files are expected, and a name that would leave the data directory (`..`, absolute) is
 * refused. A file's chunks must be consumed before the next entry is asked for.
 */
async function* templateEntries(archive: string): AsyncGenerator<TemplateEntry> {
  const { extract } = await import('tar-stream'); // needed on a first start only
  const entries = extract();
  // Large chunks: the tar parser's cost is per chunk, and 16 KB ones made unpacking 0.3 s slower.
  const file = createReadStream(archive, { highWaterMark: 1 << 20 });
  const inflate = createBrotliDecompress({ chunkSize: 1 << 20 });
  for (const stream of [file, inflate]) stream.on('error', (err: Error) => entries.destroy(err));
  file.pipe(inflate).pipe(entries);
  for await (const entry of entries) {
    const name = entry.header.name;
    if (isAbsolute(name) || normalize(name).split(sep).includes('..'))
      throw new Error(`template entry outside the data directory: ${name}`);
    if (entry.header.type === 'directory') {
      entry.resume();
      yield { type: 'directory', name };
    } else if (entry.header.type === 'file') {
      yield { type: 'file', name, size: entry.header.size ?? 0, chunks: entry as AsyncIterable<Buffer> };
    } else {
      throw new Error(`unexpected ${entry.header.type} in the template: ${name}`);
    }
  }
}

/**
 * Writes the template's directories and files under `root` (node-tar's extraction took over a
 * second for the template's thousand small files, this under 0.1 s).
 */
async function unpack(archive: string, root: string): Promise<void> {
  // Synchronous writes: this runs once, before the server listens, and a thousand awaited writes cost five times more.
  for await (const entry of templateEntries(archive)) {
    const target = resolve(root, entry.name);
    if (entry.type === 'directory') {
      mkdirSync(target, { recursive: true });
      continue;
    }
    // Each chunk written as it comes: a whole-file copy (Buffer.concat) per file left 10–15 MB
    // resident after a first start (the C heap keeps what it freed).
    const fd = openSync(target, 'w', 0o600);
    try {
      for await (const data of entry.chunks) {
        for (let at = 0; at < data.length;) at += writeSync(fd, data, at);
      }
    } finally {
      closeSync(fd);
    }
  }
}

/** The template as a list of directories and files, for a database in memory (see `readTemplate`). */
export interface TemplateFiles {
  schemaVersion: string;
  directories: string[];
  /** Each file's bytes in an array of exactly its size. */
  files: { name: string; data: Uint8Array }[];
}

/**
 * The template read into memory, for an embedded database that lives in memory
 * (PGLITE_MEMORY=1): PGlite's in-memory filesystem is then filled from it before Postgres
 * starts, instead of running `initdb` there. That is about a second faster, and leaves less
 * behind: initdb grows the WebAssembly memory (which never shrinks) by some 15 MB, and the files
 * it writes a page at a time sit in arrays of up to twice their size. Null when the template is
 * missing or does not fit (the caller's `initdb` then creates the database); a damaged archive
 * is logged and gives null too.
 */
export async function readTemplate(
  want: { embeddingDimensions: number; schemaVersion: string },
  log: Logger,
  templateDir = TEMPLATE_DIR,
): Promise<TemplateFiles | null> {
  try {
    const template = fittingTemplate(templateDir, want, log);
    if (!template) return null;
    const result: TemplateFiles = { schemaVersion: template.meta.schemaVersion, directories: [], files: [] };
    for await (const entry of templateEntries(template.archive)) {
      if (entry.type === 'directory') {
        result.directories.push(entry.name);
        continue;
      }
      const data = new Uint8Array(entry.size);
      let at = 0;
      for await (const chunk of entry.chunks) {
        if (at + chunk.length > data.length)
          throw new Error(`template entry longer than its header says: ${entry.name}`);
        data.set(chunk, at);
        at += chunk.length;
      }
      if (at !== data.length) throw new Error(`template entry shorter than its header says: ${entry.name}`);
      result.files.push({ name: entry.name, data });
    }
    return result;
  } catch (err) {
    log.warn({ err }, 'could not read the embedded database template; creating the database with initdb');
    return null;
  }
}
