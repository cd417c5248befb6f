/**
 * The injection detector's figures as the docs quote them: rules alone and rules + learned scorer
 * on every labelled set, with what the scorer's word floor costs. bench/injection.ts computes them
 * (the sets read from the mirrors too) and writes them to data/injection/bench-figures.json and into
 * the docs' `bench:injection-*` blocks; test/docs-figures.test.ts recomputes the sets committed to
 * this repository and checks that the docs say what the file says.
 */
import { readFileSync } from 'node:fs';
import { detectInjection, detectWithRules, MODEL_MIN_WORDS } from '../src/security/injection.js';
import { loadInjectionModel, normalizeForModel } from '../src/security/injection-model.js';
import { clean } from '../src/security/sanitize.js';
import { fmt } from './lib/doc-blocks.js';
import {
  buildSplits,
  confusion,
  dedupe,
  loadFinalHeldout,
  loadShortRequests,
  mirrorsPresent,
  root,
} from './injection-data.js';

/** The floor before the short-message change, measured beside the current one. */
export const FORMER_MODEL_MIN_WORDS = 4;
export const FIGURES_FILE = 'data/injection/bench-figures.json';

export type Counts = ReturnType<typeof confusion>;
export interface SetFigures {
  id: string;
  name: string;
  status: string;
  /** Whether the rows are in this repository (the test recomputes those); else read from the mirrors. */
  committed: boolean;
  rules: Counts;
  combined: Counts;
  /** Rules + model with the former word floor. */
  formerFloor: Counts;
}
export interface InjectionFigures {
  threshold: number;
  modelMinWords: number;
  formerModelMinWords: number;
  sets: SetFigures[];
}

type Labelled = { text: string; label: number };
interface SetSpec {
  id: string;
  name: string;
  status: string;
  committed: boolean;
  rows: () => Labelled[];
}

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`test/fixtures/prompt-injection/${name}`, root), 'utf8')) as T;
const DIRECT = /^PINT_(public_prompt_injection|internal_prompt_injection|jailbreak)$/;
const valid = () => fixture<{ prompt: string; label: number; source: string }[]>('valid.json');
const committedHeldout = (source: string) =>
  readFileSync(new URL('data/injection/heldout.jsonl', root), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Labelled & { source: string })
    .filter((r) => r.source === source);

/** The sets, in the order the docs show them; the mirror ones share one read of the mirrors. */
function specs(): SetSpec[] {
  let mirrored: ReturnType<typeof readMirrors> | undefined;
  const fromMirrors = (pick: (m: ReturnType<typeof readMirrors>) => Labelled[]) => () =>
    pick((mirrored ??= readMirrors()));
  return [
    {
      id: 'final',
      name: '**final held-out**: SHIELD jailbreak prompts + OWASP cheat-sheet sentences',
      status:
        '**held-out**: set aside before the model was fixed and scored once for it; the word floor was chosen on HWU64',
      committed: false,
      rows: fromMirrors((m) => m.final),
    },
    {
      id: 'extraction',
      name: 'Tensor Trust extraction attacks',
      status: 'held-out, but looked at while tuning',
      committed: false,
      rows: fromMirrors((m) => m.extraction),
    },
    {
      id: 'roleplay',
      name: 'GPTeacher roleplay prompts (benign)',
      status: 'held-out, but looked at while tuning',
      committed: true,
      rows: () => committedHeldout('gpteacher roleplay'),
    },
    {
      id: 'promptshield-test',
      name: 'promptshield test rows (same collection as train, in scope)',
      status: 'held-out rows of a training collection',
      committed: true,
      rows: () => committedHeldout('promptshield test'),
    },
    {
      id: 'short-reporting',
      name: 'HWU64 short assistant requests, folds 6–10 (benign)',
      status: 'held-out (never trained or tuned on)',
      committed: false,
      rows: fromMirrors((m) => m.shortReporting),
    },
    {
      id: 'short-choosing',
      name: 'HWU64 short assistant requests, folds 1–5 (benign)',
      status: 'seen (the word floor chosen here)',
      committed: false,
      rows: fromMirrors((m) => m.shortChoosing),
    },
    {
      id: 'validation',
      name: 'validation split',
      status: 'seen (L2 and threshold chosen here)',
      committed: false,
      rows: fromMirrors((m) => m.validation),
    },
    {
      id: 'notinject',
      name: 'NotInject (339 benign look-alikes)',
      status: 'seen (reporting only, never trained on)',
      committed: true,
      rows: () =>
        ['NotInject_one.json', 'NotInject_two.json', 'NotInject_three.json'].flatMap((f) =>
          fixture<{ prompt: string }[]>(f).map((r) => ({ text: r.prompt, label: 0 })),
        ),
    },
    {
      id: 'valid',
      name: 'PIGuard valid.json, all rows',
      status: 'seen (reporting only, never trained on)',
      committed: true,
      rows: () => valid().map((r) => ({ text: r.prompt, label: r.label })),
    },
    {
      id: 'pint',
      name: 'PINT direct injections + benign rows of valid.json',
      status: 'seen (rules written on it)',
      committed: true,
      rows: () =>
        valid()
          .filter((r) => r.label === 0 || DIRECT.test(r.source))
          .map((r) => ({ text: r.prompt, label: r.label })),
    },
    {
      id: 'bipia',
      name: 'BIPIA indirect injections of valid.json (not targeted: fenced as tool output instead)',
      status: 'seen (reporting only)',
      committed: true,
      rows: () =>
        valid()
          .filter((r) => r.source.startsWith('BIPIA'))
          .map((r) => ({ text: r.prompt, label: r.label })),
    },
  ];
}

function readMirrors() {
  const splits = buildSplits();
  const used = new Set(
    [...splits.train, ...splits.validation, ...splits.heldout, ...splits.sameCollection].map((r) =>
      normalizeForModel(r.text),
    ),
  );
  const short = loadShortRequests();
  const choosing = dedupe(short.choosing, used);
  return {
    // rows equal to a training, validation or held-out row after normalisation are dropped
    final: dedupe(loadFinalHeldout(), used),
    extraction: splits.heldout.filter((r) => r.source === 'tensor-trust extraction'),
    validation: splits.validation,
    shortChoosing: choosing,
    shortReporting: dedupe(short.reporting, new Set([...used, ...choosing.map((r) => normalizeForModel(r.text))])),
  };
}

function measure(spec: SetSpec): SetFigures {
  const rows = spec.rows().map((r) => ({ text: clean(r.text), label: r.label }));
  return {
    id: spec.id,
    name: spec.name,
    status: spec.status,
    committed: spec.committed,
    rules: confusion(rows, (t) => detectWithRules(t).flagged),
    combined: confusion(rows, (t) => detectInjection(t).flagged),
    formerFloor: confusion(rows, (t) => detectInjection(t, FORMER_MODEL_MIN_WORDS).flagged),
  };
}

/** Every set's figures; without the mirrors, only the committed sets (`committedOnly`). */
export function measureInjection({ committedOnly = false } = {}): InjectionFigures {
  if (!committedOnly && !mirrorsPresent())
    throw new Error(
      'the mirrors are not on this machine (see data/injection/SOURCES.md): only committed sets can be measured',
    );
  return {
    threshold: loadInjectionModel().threshold,
    modelMinWords: MODEL_MIN_WORDS,
    formerModelMinWords: FORMER_MODEL_MIN_WORDS,
    sets: specs()
      .filter((s) => s.committed || !committedOnly)
      .map(measure),
  };
}

export function readFigures(): InjectionFigures {
  return JSON.parse(readFileSync(new URL(FIGURES_FILE, root), 'utf8')) as InjectionFigures;
}

// ── rendering ──

/** One decimal; two under 0.1%, so one flag in thousands does not read as none. */
const pct = (a: number, b: number) => {
  const v = (100 * a) / b;
  return `${v.toFixed(v > 0 && v < 0.1 ? 2 : 1)}%`;
};
const cell = (a: number, b: number) => (b ? `${pct(a, b)} (${a}/${fmt(b)})` : '–');
const recall = (c: Counts) => cell(c.tp, c.pos);
const fp = (c: Counts) => cell(c.fp, c.neg);
const set = (f: InjectionFigures, id: string) => {
  const s = f.sets.find((x) => x.id === id);
  if (!s) throw new Error(`no figures for ${id}`);
  return s;
};

/** docs/injection-detector.md: rules alone and rules + model on every set. */
export function renderTable(f: InjectionFigures): string {
  const lines = [
    '| set | status | recall rules | recall rules + model | FP rules | FP rules + model |',
    '| --- | --- | --- | --- | --- | --- |',
    ...f.sets.map(
      (s) =>
        `| ${s.name} | ${s.status} | ${recall(s.rules)} | ${recall(s.combined)} | ${fp(s.rules)} | ${fp(s.combined)} |`,
    ),
  ];
  return `\n${lines.join('\n')}\n`;
}

/** docs/injection-detector.md: rules + model with the former word floor and the current one. */
export function renderFloorTable(f: InjectionFigures): string {
  const a = f.formerModelMinWords;
  const b = f.modelMinWords;
  const lines = [
    `| set | recall, floor ${a} | recall, floor ${b} | FP, floor ${a} | FP, floor ${b} |`,
    '| --- | --- | --- | --- | --- |',
    ...f.sets
      .filter((s) => s.id !== 'bipia')
      .map(
        (s) =>
          `| ${s.name} | ${recall(s.formerFloor)} | ${recall(s.combined)} | ${fp(s.formerFloor)} | ${fp(s.combined)} |`,
      ),
  ];
  return `\n${lines.join('\n')}\n`;
}

/** README, the injection detector paragraph: what it catches and what it costs, on unseen data. */
export function renderSummary(f: InjectionFigures): string {
  const final = set(f, 'final');
  const tt = set(f, 'extraction');
  const ni = set(f, 'notinject');
  const short = set(f, 'short-reporting');
  const both = (a: number, b: number, rules: number) =>
    `${pct(a, b)} (${a}/${fmt(b)}; the rules alone ${pct(rules, b)})`;
  return (
    `on a collection set aside until the model was fixed, rules + model caught ` +
    `${both(final.combined.tp, final.combined.pos, final.rules.tp)} of long jailbreak prompts and flagged ` +
    `${both(final.combined.fp, final.combined.neg, final.rules.fp)} of security documentation sentences; ` +
    `on Tensor Trust's extraction attacks they caught ${both(tt.combined.tp, tt.combined.pos, tt.rules.tp)}; ` +
    `they flag ${pct(ni.combined.fp, ni.combined.neg)} of NotInject's benign look-alikes (${ni.combined.fp}/${ni.combined.neg}) ` +
    `and ${pct(short.combined.fp, short.combined.neg)} of short assistant requests (HWU64, ${short.combined.fp}/${fmt(short.combined.neg)})`
  );
}

/** README, security section: the PIGuard targets. */
export function renderTargets(f: InjectionFigures): string {
  const pint = set(f, 'pint');
  const ni = set(f, 'notinject');
  return (
    `${pct(pint.combined.tp, pint.combined.pos)} recall on direct injections (PINT, ${pint.combined.tp}/${pint.combined.pos}), ` +
    `${pct(ni.combined.fp, ni.combined.neg)} false positives on NotInject's ${ni.combined.neg} benign look-alikes (${ni.combined.fp}/${ni.combined.neg})`
  );
}

/** The word floor, as README and the detector's doc name it. */
export const renderFloor = (f: InjectionFigures) => `${f.modelMinWords}`;

/** Every block the docs hold, by file. */
export function injectionDocBlocks(f: InjectionFigures): Record<string, Record<string, string>> {
  return {
    'docs/injection-detector.md': {
      'injection-table': renderTable(f),
      'injection-floor': renderFloorTable(f),
      'injection-min-words': renderFloor(f),
    },
    'README.md': {
      'injection-summary': renderSummary(f),
      'injection-targets': renderTargets(f),
      'injection-min-words': renderFloor(f),
    },
  };
}
