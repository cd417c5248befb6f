import { parseArgs, type ParseArgsConfig } from 'node:util';

/** The options a command takes, in `node:util`'s `parseArgs` form. */
export type CliOptions = NonNullable<ParseArgsConfig['options']>;
type Parsed<O extends CliOptions> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: boolean }>
>;

/**
 * A command line read by `node:util`'s `parseArgs`, strictly: `--name value` and `--name=value`
 * alike, and an unknown option, a missing value or a stray argument is a problem that names it
 * (the CLI prints it with its usage and exits 2), never a flag silently taken for another.
 */
export function readArgs<const O extends CliOptions>(
  argv: string[],
  options: O,
  { positionals = false }: { positionals?: boolean } = {},
): ({ ok: true } & Pick<Parsed<O>, 'values' | 'positionals'>) | { ok: false; problem: string } {
  try {
    const parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: positionals });
    return { ok: true, values: parsed.values, positionals: parsed.positionals };
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS_')) throw err;
    // Node adds a hint about `--` after the first sentence; the option's name is in the first.
    return { ok: false, problem: `${(err as Error).message.split('. ')[0]}.` };
  }
}

/** `--help`, which every CLI takes. */
export const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const satisfies CliOptions;

/**
 * A command line read as every CLI here reads it: a problem is printed with the usage (exit 2),
 * `--help` prints the usage (exit 0); otherwise the values and positionals.
 */
export function commandLine<const O extends CliOptions>(
  argv: string[],
  options: O,
  usage: string,
  { positionals = false }: { positionals?: boolean } = {},
): { exit: 0 | 2 } | ({ exit?: undefined } & Pick<Parsed<O & typeof HELP_OPTION>, 'values' | 'positionals'>) {
  const args = readArgs<O & typeof HELP_OPTION>(argv, { ...HELP_OPTION, ...options }, { positionals });
  if (!args.ok) {
    console.error(`${args.problem}\n${usage}`);
    return { exit: 2 };
  }
  // The values' type is generic here; `help` is always among the options.
  if ((args.values as { help?: boolean }).help) {
    console.log(usage);
    return { exit: 0 };
  }
  return { values: args.values, positionals: args.positionals };
}
