/**
 * npm run import -- <table> <file.csv|file.jsonl> [--tenant <slug>] [--no-embed]
 *
 * Validates every row, reports each bad one by line, and imports nothing unless all are
 * good (one transaction). Re-importing the same file changes nothing.
 */
import { createEmbedder } from '../../provider/openai.js';
import { embedMissing } from '../embed.js';
import { importFile } from '../import/run.js';
import { IMPORT_TABLES, tableColumns, tableSchema } from '../import/tables.js';
import { openDataPort } from '../index.js';
import { tenantListRow } from '../rows.js';
import { cliSetup, describeTarget, fail } from './common.js';
import { HELP_OPTION, readArgs } from '../../cli/args.js';
import { cliCommand } from '../cli-command.js';

/** Each table and its columns; `?` marks an optional one. */
const USAGE = `Usage: ${cliCommand('import', '<table> <file.csv|file.jsonl> [--tenant <slug>] [--no-embed]')}
CSV has a header row with these column names; JSONL has one object per line with these keys.
Tables and columns (? = optional):
${IMPORT_TABLES.map((t) => {
  const shape = tableSchema(t).shape as Record<string, { isOptional(): boolean }>;
  return `  ${t}: ${tableColumns(t)
    .map((c) => (shape[c]?.isOptional() ? `${c}?` : c))
    .join(', ')}`;
}).join('\n')}`;

async function main(): Promise<number> {
  const args = readArgs(
    process.argv.slice(2),
    { ...HELP_OPTION, tenant: { type: 'string' }, 'no-embed': { type: 'boolean' } },
    { positionals: true },
  );
  if (!args.ok) {
    console.error(`${args.problem}\n${USAGE}`);
    return 2;
  }
  const options = args.values;
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  const [table, file, ...extra] = args.positionals;
  if (!table || !file || extra.length > 0) {
    console.error(extra.length > 0 ? `Unexpected argument '${extra[0]}'.\n${USAGE}` : USAGE);
    return 2;
  }
  const { config, log } = cliSetup();
  // Importing your own data into a fresh embedded database: no demo rows alongside.
  const port = await openDataPort(config, log, { seedDemo: false });
  try {
    const slug = options.tenant;
    const tenants = await port.admin('list_tenants', {}, tenantListRow);
    const tenant = slug !== undefined ? tenants.find((t) => t.slug === slug) : tenants.find((t) => t.is_default);
    if (!tenant) {
      console.error(`Unknown tenant "${String(slug)}". Tenants: ${tenants.map((t) => t.slug).join(', ')}`);
      return 2;
    }
    const started = Date.now();
    const result = await importFile(port, { table, file, tenantId: tenant.id });
    if (!result.ok) {
      const n = result.problemCount;
      console.error(`Nothing was imported: ${n} problem${n === 1 ? '' : 's'} in ${file}`);
      for (const p of result.problems) console.error(p.line > 0 ? `  line ${p.line}: ${p.message}` : `  ${p.message}`);
      if (n > result.problems.length) console.error(`  …and ${n - result.problems.length} more`);
      return 1;
    }
    console.log(
      `Imported ${result.rows} ${table} row(s) into tenant "${tenant.slug}" of ${describeTarget(config)} in ${((Date.now() - started) / 1000).toFixed(1)} s: ` +
        `${result.inserted} new, ${result.updated} updated, ${result.unchanged} unchanged.`,
    );
    if (table === 'campaigns' && !options['no-embed']) {
      const embed = createEmbedder(config);
      if (!port.vectorsAvailable)
        console.log('pgvector is not installed here: campaigns are searchable by full text only.');
      else if (!embed) console.log('No EMBEDDING_MODEL configured: run `npm run db:embed` later for semantic search.');
      else console.log(`Embedded ${await embedMissing(port, embed, { tenantId: tenant.id, log })} campaign(s).`);
    }
    return 0;
  } finally {
    await port.close();
  }
}

main().then((code) => process.exit(code), fail);
