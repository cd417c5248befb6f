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
import { join } from 'node:path';
import { parseConfig } from '../../config/index.js';
import { TEMPLATE_ARCHIVE, TEMPLATE_DIR } from '../transports/pglite-template.js';
import { buildTemplate } from '../transports/pglite-template-build.js';
import { fail } from './common.js';
import { HELP_OPTION, readArgs } from '../../cli/args.js';
import { cliCommand } from '../cli-command.js';

async function main(): Promise<void> {
  // The defaults, not the environment: the template serves every installation that keeps them.
  const { EMBEDDING_DIMENSIONS } = parseConfig({ OPENAI_API_KEY: 'unused' });
  const meta = await buildTemplate(TEMPLATE_DIR, EMBEDDING_DIMENSIONS);
  console.log(
    `Wrote ${join(TEMPLATE_DIR, TEMPLATE_ARCHIVE)} (PGlite ${meta.pglite}, schema ${meta.schemaVersion}, ${meta.embeddingDimensions} dimensions).`,
  );
}

// It takes no options: a mistyped one stops it before it rewrites the template.
const TEMPLATE_USAGE = `Usage: ${cliCommand('db:template')} (no options; rebuilds assets/pglite-template.tar.br)`;
const args = readArgs(process.argv.slice(2), HELP_OPTION);
if (!args.ok) {
  console.error(`${args.problem}\n${TEMPLATE_USAGE}`);
  process.exitCode = 2;
} else if (args.values.help) console.log(TEMPLATE_USAGE);
else main().catch(fail);
