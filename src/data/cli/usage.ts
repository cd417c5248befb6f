/**
 * npm run usage [-- --from YYYY-MM-DD] [--to YYYY-MM-DD] [--tenant <slug>]
 *
 * Token use and cost per tenant and UTC day from the token ledger (default: the last 30 days),
 * as a table, with totals: prompt tokens (and how many of them the provider's prompt cache
 * served), completion tokens (and how many were reasoning), turns and USD.
 */
import { openDataPort } from '../index.js';
import { usageByDayRow } from '../rows.js';
import { cliSetup, describeTarget, fail } from './common.js';
import { commandLine } from '../../cli/args.js';
import { cliCommand } from '../cli-command.js';

const DAY = 86_400_000;
const USAGE = `Usage: ${cliCommand('usage', '[--from YYYY-MM-DD] [--to YYYY-MM-DD] [--tenant <slug>]')}`;

async function main(): Promise<number> {
  const args = commandLine(
    process.argv.slice(2),
    { from: { type: 'string' }, to: { type: 'string' }, tenant: { type: 'string' } },
    USAGE,
  );
  if (args.exit !== undefined) return args.exit;
  const date = (v: string | undefined): Date | undefined | 'bad' => {
    if (v === undefined) return undefined;
    // Round-tripped: Date.parse takes 2026-11-31 for 1 December.
    const day = /^\d{4}-\d{2}-\d{2}$/.test(v) ? new Date(v) : undefined;
    return day && !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === v ? day : 'bad';
  };
  const fromArg = date(args.values.from);
  const toArg = date(args.values.to);
  if (fromArg === 'bad' || toArg === 'bad') {
    console.error(`--from and --to take a date as YYYY-MM-DD.\n${USAGE}`);
    return 2;
  }
  // --to is inclusive: the whole of that day.
  const to = toArg ? new Date(toArg.getTime() + DAY) : new Date(Math.ceil(Date.now() / DAY) * DAY);
  const from = fromArg ?? new Date(to.getTime() - 30 * DAY);
  const tenant = args.values.tenant;
  const { config, log } = cliSetup();
  const port = await openDataPort(config, log, { seedDemo: false });
  try {
    const rows = (
      await port.admin('usage_by_day', { from: from.toISOString(), to: to.toISOString() }, usageByDayRow)
    ).filter((r) => tenant === undefined || r.tenant === tenant);
    console.log(
      `Token use and cost in ${describeTarget(config)}, ${from.toISOString().slice(0, 10)} to ${new Date(to.getTime() - DAY).toISOString().slice(0, 10)} (UTC days)`,
    );
    if (!rows.length) {
      console.log('No turns recorded in this period.');
      return 0;
    }
    const table = [
      ['tenant', 'day', 'prompt', 'cached', 'completion', 'reasoning', 'total', 'turns', 'cost (USD)'],
      ...rows.map((r) => [
        r.tenant,
        r.day,
        n(r.prompt_tokens),
        n(r.cached_prompt_tokens),
        n(r.completion_tokens),
        n(r.reasoning_tokens),
        n(r.prompt_tokens + r.completion_tokens),
        n(r.turns),
        usd(r.cost_usd, r.unpriced_turns),
      ]),
    ];
    type Summed = 'prompt_tokens' | 'cached_prompt_tokens' | 'completion_tokens' | 'reasoning_tokens' | 'turns';
    const sum = (k: Summed | 'cost_usd' | 'unpriced_turns') => rows.reduce((a, r) => a + r[k], 0);
    table.push([
      'total',
      '',
      n(sum('prompt_tokens')),
      n(sum('cached_prompt_tokens')),
      n(sum('completion_tokens')),
      n(sum('reasoning_tokens')),
      n(sum('prompt_tokens') + sum('completion_tokens')),
      n(sum('turns')),
      usd(sum('cost_usd'), sum('unpriced_turns')),
    ]);
    const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
    for (const row of table)
      console.log(row.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '));
    if (sum('unpriced_turns') > 0)
      console.log('* some turns have no cost: no price is known for their model (set MODEL_PRICES).');
    return 0;
  } finally {
    await port.close();
  }
}

const n = (x: number) => x.toLocaleString('en-US');
/** Dollars to the hundredth of a cent; a `*` when some turns of the sum had no price. */
const usd = (x: number, unpriced: number) => `${x.toFixed(4)}${unpriced > 0 ? '*' : ''}`;

main().then((code) => process.exit(code), fail);
