import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readArgs } from '../src/cli/args.js';
import { ConfigError, parseConfig, requireLlm, type Config } from '../src/config/index.js';
import { openDataPort } from '../src/data/index.js';
import { createLlmClient } from '../src/provider/openai.js';
import { createModelPricing } from '../src/provider/pricing.js';
import { createLogger, type Logger } from '../src/telemetry/logger.js';
import { createSwitchboard } from '../src/wiring/app.js';
import { EVAL_FAMILIES, type EvalCase } from './case.js';
import { ALL_CASES } from './cases/index.js';
import { draftFromFeedback, toolFamilies } from './from-feedback.js';
import { compareToBaseline, formatTable, parseRunReport, summarize, type RunReport } from './report.js';
import { recordedModel, recordingTape, replayTape, type Tape } from './recording.js';
import { runCases } from './runner.js';

export const USAGE = `Usage: npm run eval -- [options]
  --case <id>            run this case (repeatable); --family <name> every case of a family (repeatable:
                         ${EVAL_FAMILIES.join(', ')})
  --baseline <file>      compare with a saved run (pass rate, regressed and fixed cases, tokens, cost)
  --save-baseline        save this run as the baseline (to --baseline, default ${'evals/baseline.json'})
  --json                 print the run as JSON instead of the table
  --out <file>           where the run's JSON is written (default .data/evals/last-run.json)
  --concurrency <n>      cases run at once, each in its own thread (default 2)
  --record <dir>         keep each case's model answers in <dir>/<case>.json
  --replay <dir>         run with the answers recorded in <dir> instead of the provider (no key, no
                         network; marked as a replay)
  --list                 list the cases and exit
  --from-feedback <turn> draft a case from a rated answer (the console's thumbs-down list) and exit;
                         --comment <text> replaces the voters' comments; --draft-out <file> (default
                         .data/evals/drafts/<turn>.txt)
Runs against the configured model (OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL) on a fresh embedded
database seeded with the demo data. Exit 1 when a case fails (with --baseline: when one regressed).`;

const DEFAULT_BASELINE = 'evals/baseline.json';
const DEFAULT_OUT = '.data/evals/last-run.json';

export interface EvalIo {
  env: Record<string, string | undefined>;
  /** The table or JSON (stdout). */
  out(text: string): void;
  /** Progress, problems and where files went (stderr). */
  err(text: string): void;
  /** Replaces the suite (the offline test runs its own cases through the same runner). */
  cases?: readonly EvalCase[];
}

/**
 * The eval run's settings: the configured model, but a fresh in-memory embedded database with the
 * demo data (never the deployment's own database or Redis), and no flood limit or budgets.
 */
export function evalConfig(env: Record<string, string | undefined>, opts: { replay?: boolean } = {}): Config {
  const config = parseConfig({
    ...env,
    // A replay asks no provider: no key is needed (and none is used).
    ...(opts.replay && !env.OPENAI_API_KEY && !env.OPENAI_BASE_URL ? { OPENAI_API_KEY: 'replay-needs-no-key' } : {}),
    DATABASE_URL: undefined,
    SUPABASE_URL: undefined,
    SUPABASE_SERVICE_ROLE_KEY: undefined,
    REDIS_URL: undefined,
    PGLITE_MEMORY: '1',
    // A run is dozens of turns in a few minutes: the flood limit and the budgets are not under test.
    USER_MESSAGES_PER_MINUTE: '0',
    TOKEN_BUDGET_PER_USER_DAILY: undefined,
    TOKEN_BUDGET_PER_TENANT_MONTHLY: undefined,
    BUDGET_USD_PER_TENANT_MONTHLY: undefined,
  });
  requireLlm(config);
  return config;
}

function providerHost(config: Config): string {
  try {
    return new URL(config.OPENAI_BASE_URL ?? 'https://api.openai.com/v1').host;
  } catch {
    return 'the configured endpoint';
  }
}

function select(cases: readonly EvalCase[], ids: string[], families: string[]): EvalCase[] | string {
  const unknownFamily = families.find((f) => !(EVAL_FAMILIES as readonly string[]).includes(f));
  if (unknownFamily) return `--family ${unknownFamily}: not a family (${EVAL_FAMILIES.join(', ')})`;
  const unknownCase = ids.find((id) => !cases.some((c) => c.id === id));
  if (unknownCase) return `--case ${unknownCase}: no such case (npm run eval -- --list)`;
  if (!ids.length && !families.length) return [...cases];
  return cases.filter((c) => ids.includes(c.id) || families.includes(c.family));
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(value, null, 2)}\n`);
}

async function fromFeedback(
  io: EvalIo,
  log: Logger,
  turnId: string,
  opts: { comment?: string; draftOut?: string },
): Promise<number> {
  // The deployment's own database: that is where the turn record and its votes are.
  const config = parseConfig(io.env);
  const port = await openDataPort(config, log, { seedDemo: false });
  try {
    const drafted = await draftFromFeedback(port, turnId, {
      ...(opts.comment !== undefined ? { comment: opts.comment } : {}),
      familyOf: toolFamilies(config),
    });
    if (!drafted.ok) {
      io.err(drafted.problem);
      return 1;
    }
    const file = opts.draftOut ?? join('.data', 'evals', 'drafts', `${turnId.toLowerCase()}.txt`);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, drafted.source);
    io.out(drafted.source.trimEnd());
    io.err(
      `Draft written to ${file}: paste it into evals/cases/${drafted.draft.family ?? '<family>'}.ts and fill each TODO.` +
        (drafted.draft.question ? '' : ' The turn record keeps no message text, so the question is yours to write.'),
    );
    return 0;
  } finally {
    await port.close();
  }
}

/** `npm run eval`: returns the exit code (0 all passed, 1 a case failed or regressed, 2 a usage or setup problem). */
export async function runEval(argv: string[], io: EvalIo): Promise<number> {
  const args = readArgs(argv, {
    help: { type: 'boolean', short: 'h' },
    case: { type: 'string', multiple: true },
    family: { type: 'string', multiple: true },
    baseline: { type: 'string' },
    'save-baseline': { type: 'boolean' },
    json: { type: 'boolean' },
    out: { type: 'string' },
    concurrency: { type: 'string' },
    list: { type: 'boolean' },
    'from-feedback': { type: 'string' },
    record: { type: 'string' },
    replay: { type: 'string' },
    comment: { type: 'string' },
    'draft-out': { type: 'string' },
  });
  if (!args.ok) {
    io.err(`${args.problem}\n${USAGE}`);
    return 2;
  }
  const { values } = args;
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  const all = io.cases ?? ALL_CASES;
  const cases = select(all, values.case ?? [], values.family ?? []);
  if (typeof cases === 'string') {
    io.err(cases);
    return 2;
  }
  if (values.list) {
    io.out(cases.map((c) => `${c.id.padEnd(44)} ${c.tenant.padEnd(12)} ${c.question}`).join('\n'));
    return 0;
  }
  const concurrency = Number(values.concurrency ?? '2');
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 16) {
    io.err(`--concurrency ${values.concurrency}: a whole number from 1 to 16`);
    return 2;
  }
  const log = createLogger(io.env.LOG_LEVEL ?? 'warn', { write: (line: string) => io.err(line.trimEnd()) });

  try {
    if (values['from-feedback'] !== undefined)
      return await fromFeedback(io, log, values['from-feedback'], {
        ...(values.comment !== undefined ? { comment: values.comment } : {}),
        ...(values['draft-out'] !== undefined ? { draftOut: values['draft-out'] } : {}),
      });

    const baselineFile = values.baseline ?? (values['save-baseline'] ? DEFAULT_BASELINE : undefined);
    let baseline: RunReport | undefined;
    if (baselineFile && existsSync(baselineFile))
      baseline = parseRunReport(await readFile(baselineFile, 'utf8'), baselineFile);
    else if (values.baseline && !values['save-baseline']) {
      io.err(`--baseline ${values.baseline}: no such file (write one with --save-baseline)`);
      return 2;
    }

    if (values.record && values.replay) {
      io.err('--record and --replay: one at a time');
      return 2;
    }
    const config = evalConfig(io.env, { replay: values.replay !== undefined });
    let tape: Tape | undefined;
    if (values.replay) {
      const model = await recordedModel(values.replay);
      if (!model) {
        io.err(`--replay ${values.replay}: no recordings there (make them with --record ${values.replay})`);
        return 2;
      }
      tape = replayTape(values.replay, model);
    } else if (values.record) tape = recordingTape(createLlmClient(config, log), values.record);
    const sb = await createSwitchboard(config, log, tape ? { llm: tape.llm } : {});
    let report: RunReport;
    try {
      const pricing = createModelPricing(config, log);
      const against = values.replay ? `the recordings in ${values.replay}` : providerHost(config);
      io.err(`Running ${cases.length} cases against ${sb.llm.model} at ${against}…`);
      const results = await runCases(
        {
          agent: sb.agent,
          toolNames: new Set(sb.registry.tools.map((t) => t.name)),
          cost: (usage, model) => pricing.cost(model ?? sb.llm.model, usage),
          ...(tape ? { inCase: tape.inCase } : {}),
        },
        cases,
        {
          concurrency,
          onResult: (r) => io.err(`  ${r.status.padEnd(4)} ${r.id} (${r.latencyMs} ms, ${r.tokens.total} tokens)`),
        },
      );
      report = summarize(results, {
        model: sb.llm.model,
        provider: values.replay ? `replay of ${values.replay}` : providerHost(config),
        source: values.replay ? 'recorded' : 'live',
      });
      if (values.record) io.err(`The model's answers are recorded in ${values.record}/`);
    } finally {
      await sb.close();
    }

    const diff = baseline ? compareToBaseline(report, baseline) : undefined;
    io.out(
      values.json ? JSON.stringify(diff ? { ...report, baseline: diff } : report, null, 2) : formatTable(report, diff),
    );
    const out = values.out ?? DEFAULT_OUT;
    await writeJson(out, diff ? { ...report, baseline: diff } : report);
    io.err(`The run's JSON: ${out}`);
    if (values['save-baseline'] && baselineFile) {
      await writeJson(baselineFile, report);
      io.err(`Saved as the baseline: ${baselineFile}`);
    }
    if (diff) return diff.regressed.length ? 1 : 0;
    return report.totals.failed ? 1 : 0;
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(`${err.message}\nSee .env.example and the README's configuration table.`);
      return 2;
    }
    throw err;
  }
}
