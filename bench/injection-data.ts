/**
 * The labelled data behind the learned injection scorer, read from local git mirrors of public
 * repositories at pinned commits (see data/injection/SOURCES.md), and its splits. Shared by
 * bench/train-injection-model.ts (which trains) and bench/injection.ts (which reports).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { normalizeForModel } from '../src/security/injection-model.js';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]! : fallback;
};
export const MIRRORS = arg('--mirrors', process.env.MIRRORS ?? '/work/.mirror');

/** Whether the mirrors this data is read from are on this machine. */
export const mirrorsPresent = () => existsSync(`${MIRRORS}/${SOURCES.promptshield.repo.replace('/', '+')}/repo`);
export const root = new URL('../', import.meta.url);

interface Source {
  repo: string;
  commit: string;
}
export const SOURCES = {
  promptshield: { repo: 'Neural-alchemy/promptshield', commit: '341e98e4f2141cb41cb3ab94f63252bfe45b10f1' },
  tensorTrust: { repo: 'HumanCompatibleAI/tensor-trust-data', commit: 'e2385ea9cf448c9641b96e2e39f113ed4979a5b0' },
  alpacaCleaned: { repo: 'gururise/AlpacaDataCleaned', commit: '791174f63efa9aa54ca6c38639dc6e5bb5657d80' },
} satisfies Record<string, Source>;

function show(src: Source, path: string): string {
  const dir = `${MIRRORS}/${src.repo.replace('/', '+')}/repo`;
  return execFileSync('git', ['--git-dir', dir, 'show', `${src.commit}:${path}`], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
}
const jsonl = <T>(text: string): T[] =>
  text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);

export interface Row {
  text: string;
  label: 0 | 1;
  source: string;
}

/** A deterministic 0–1 value per text, for row splits that do not move when data is re-read. */
const bucket = (text: string) => {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return (h >>> 0) / 2 ** 32;
};

export function loadSplits() {
  const ps = (file: string, name: string): Row[] =>
    jsonl<{ prompt: string; label: number; attack_type?: string }>(show(SOURCES.promptshield, `ml_data/${file}`))
      // the generator's "control" rows are benign tasks labelled as attacks; leave them out
      .filter((r) => r.attack_type !== 'control')
      .map((r) => ({ text: r.prompt, label: r.label === 1 ? 1 : 0, source: `promptshield ${name}` }));
  const tt = (path: string, name: string): Row[] =>
    jsonl<{ attack: string }>(show(SOURCES.tensorTrust, path)).map((r) => ({
      text: r.attack,
      label: 1,
      source: `tensor-trust ${name}`,
    }));
  const gpt = (path: string, name: string): Row[] =>
    (JSON.parse(show(SOURCES.alpacaCleaned, path)) as { instruction: string; input?: string }[]).map((r) => ({
      text: r.input ? `${r.instruction}\n${r.input}` : r.instruction,
      label: 0,
      source: name,
    }));
  const hijack = tt('benchmarks/hijacking-robustness/v1/hijacking_robustness_dataset.jsonl', 'hijacking');
  const roleplay = gpt(
    'dataset_extensions/GPTeacher/Roleplay/roleplay-simple-deduped-roleplay-dataset.json',
    'gpteacher roleplay',
  );
  const gsm = (
    JSON.parse(show(SOURCES.alpacaCleaned, 'dataset_extensions/gsm_8k/gsm_8k_train.json')) as { instruction: string }[]
  ).map((r): Row => ({ text: r.instruction, label: 0, source: 'gsm8k' }));
  const toolformer = gpt(
    'dataset_extensions/GPTeacher/Toolformer/toolformer-dedupe-only-dataset.json',
    'gpteacher toolformer',
  );
  const split = (rows: Row[], at: number) => [
    rows.filter((r) => bucket(r.text) < at),
    rows.filter((r) => bucket(r.text) >= at),
  ];
  const [hijackTrain, hijackVal] = split(hijack, 0.8);
  const [toolTrain, toolVal] = split(toolformer, 0.8);
  const [gsmTrain, gsmVal] = split(gsm, 0.8);
  return {
    train: [...ps('train.jsonl', 'train'), ...hijackTrain!, ...toolTrain!, ...gsmTrain!],
    validation: [...ps('val.jsonl', 'val'), ...hijackVal!, ...toolVal!, ...gsmVal!],
    heldout: [
      ...tt('benchmarks/extraction-robustness/v1/extraction_robustness_dataset.jsonl', 'extraction'),
      ...roleplay,
    ],
    sameCollection: ps('test.jsonl', 'test'),
  };
}

/** Rows of the reporting sets, normalised: never trained on, never tuned on. */
export function reportingTexts(): Set<string> {
  const dir = new URL('test/fixtures/prompt-injection/', root);
  const out = new Set<string>();
  for (const f of ['valid.json', 'NotInject_one.json', 'NotInject_two.json', 'NotInject_three.json'])
    for (const r of JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as { prompt: string }[])
      out.add(normalizeForModel(r.prompt));
  return out;
}

export function dedupe(rows: Row[], drop: Set<string>): Row[] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const k = normalizeForModel(r.text);
    if (!k || seen.has(k) || drop.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** The splits, deduplicated, with the reporting sets removed and no text in two splits. */
export function buildSplits() {
  const drop = reportingTexts();
  const raw = loadSplits();
  const used = new Set<string>();
  const take = (rows: Row[]) => {
    const out = dedupe(rows, drop).filter((r) => !used.has(normalizeForModel(r.text)));
    for (const r of out) used.add(normalizeForModel(r.text));
    return out;
  };
  // held-out first: a text that occurs in both a held-out and a training source counts as held-out
  const heldout = take(raw.heldout);
  const sameCollection = take(raw.sameCollection);
  const validation = take(raw.validation);
  const train = take(raw.train);
  return { train, validation, heldout, sameCollection };
}
