/**
 * npm run db:embed [-- --tenant <slug>]
 *
 * Computes embeddings for every campaign that lacks one, with the configured
 * OpenAI-compatible endpoint (EMBEDDING_MODEL, EMBEDDING_DIMENSIONS).
 */
import { createEmbedder } from '../../provider/openai.js';
import { embedMissing } from '../embed.js';
import { openDataPort } from '../index.js';
import { tenantListRow } from '../rows.js';
import { cliSetup, fail } from './common.js';
import { commandLine } from '../../cli/args.js';
import { cliCommand } from '../cli-command.js';

const USAGE = `Usage: ${cliCommand('db:embed', '[--tenant <slug>]')}`;

async function main(): Promise<number> {
  const args = commandLine(process.argv.slice(2), { tenant: { type: 'string' } }, USAGE);
  if (args.exit !== undefined) return args.exit;
  const { config, log } = cliSetup();
  const embed = createEmbedder(config);
  if (!embed) {
    console.error(
      'No embedding endpoint: set EMBEDDING_MODEL and OPENAI_API_KEY (or OPENAI_BASE_URL for a local server).',
    );
    return 2;
  }
  const port = await openDataPort(config, log);
  try {
    if (!port.vectorsAvailable) {
      console.log('pgvector is not installed in this database: semantic search is unavailable, nothing to embed.');
      return 0;
    }
    let tenantId: string | undefined;
    const slug = args.values.tenant;
    if (slug !== undefined) {
      tenantId = (await port.admin('list_tenants', {}, tenantListRow)).find((t) => t.slug === slug)?.id;
      if (!tenantId) {
        console.error(`Unknown tenant "${slug}".`);
        return 2;
      }
    }
    const started = Date.now();
    const stored = await embedMissing(port, embed, { log, ...(tenantId ? { tenantId } : {}) });
    console.log(`Embedded ${stored} campaign(s) in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
    return 0;
  } finally {
    await port.close();
  }
}

main().then((code) => process.exit(code), fail);
