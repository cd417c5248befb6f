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
  cyberMetric: { repo: 'cybermetric/CyberMetric', commit: '2f5818bd2c19350cd6cfae028b75499ebe4ffd29' },
  tldr: { repo: 'tldr-pages/tldr', commit: '08e345f42639f67d99282813247ac670dc6e87cb' },
  owasp: { repo: 'OWASP/CheatSheetSeries', commit: '6b8819da79e0537d072e04296ffa3adfc94ba881' },
  clinc: { repo: 'clinc/oos-eval', commit: '828f8093932c8fe6ca7936c3d2e52903b1c523de' },
  banking77: { repo: 'PolyAI-LDN/task-specific-datasets', commit: '57ec275d8078af65b7731c2a98be812d844a6d6b' },
  shield: { repo: 'xz-liu/SHIELD', commit: '893ae46e434f9885bf768879c122e86a1e0e4dee' },
  hwu64: { repo: 'xliuhw/NLU-Evaluation-Data', commit: 'f6071b496b17d71e6eb43f543af0707f4ff30557' },
} satisfies Record<string, Source>;

const gitDir = (src: Source) => `${MIRRORS}/${src.repo.replace('/', '+')}/repo`;
function show(src: Source, path: string): string {
  return execFileSync('git', ['--git-dir', gitDir(src), 'show', `${src.commit}:${path}`], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
}
function list(src: Source, under: string): string[] {
  return execFileSync('git', ['--git-dir', gitDir(src), 'ls-tree', '-r', '--name-only', src.commit, under], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  })
    .split('\n')
    .filter(Boolean);
}
/** Many `git show`s in one process: `git cat-file --batch`, split back into files. */
function showMany(src: Source, paths: string[]): string[] {
  const out = execFileSync('git', ['--git-dir', gitDir(src), 'cat-file', '--batch'], {
    input: paths.map((p) => `${src.commit}:${p}`).join('\n') + '\n',
    maxBuffer: 512 << 20,
  });
  const files: string[] = [];
  let at = 0;
  while (at < out.length) {
    const nl = out.indexOf(10, at);
    const size = Number(out.subarray(at, nl).toString('utf8').split(' ')[2]);
    files.push(out.subarray(nl + 1, nl + 1 + size).toString('utf8'));
    at = nl + 1 + size + 1;
  }
  return files;
}

/** RFC 4180 CSV (quoted fields may hold commas, quotes and newlines) into rows of fields. */
function csv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field.replace(/\r$/, ''));
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field || row.length) rows.push([...row, field]);
  return rows;
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
      // the generator's "control" rows are benign tasks labelled as attacks; its "adversarial" and
      // "encoding" rows are code-execution payloads ("Bypass: `os.system('whoami')`"), outside this
      // detector's scope (the bot runs no code) and the main reason "bypass" and "system" alone
      // looked like attacks: leave all three out, in every split
      .filter((r) => !['control', 'adversarial', 'encoding'].includes(r.attack_type ?? ''))
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
  // Benign and security-flavoured: CyberMetric's multiple-choice questions (the question only, as
  // a user would ask it), and tldr-pages' one-line descriptions of command-line tools, where
  // "ignore", "override", "bypass", "force", "system" and "previous" are everyday words.
  const cyber = (
    JSON.parse(show(SOURCES.cyberMetric, 'CyberMetric-2000-v1.json')) as { questions: { question: string }[] }
  ).questions.map((q): Row => ({ text: q.question, label: 0, source: 'cybermetric' }));
  const tldrPages = list(SOURCES.tldr, 'pages/common').filter((p) => p.endsWith('.md'));
  const tldr = showMany(SOURCES.tldr, tldrPages).flatMap((page) =>
    page
      .split('\n')
      .filter((l) => /^[->] /.test(l) && !/^> (?:More information|See also|This command is an alias)/.test(l))
      .map((l) => l.slice(2).replace(/:$/, '').replace(/\.$/, ''))
      .filter((l) => l.split(' ').length >= 4)
      .map((text): Row => ({ text, label: 0, source: 'tldr-pages' })),
  );
  // Benign and conversational: what people type to an assistant or a support desk (CLINC150's
  // in- and out-of-scope queries, Banking77's customer messages): "cancel my last transfer",
  // "disregard that, I meant…".
  const clincData = JSON.parse(show(SOURCES.clinc, 'data/data_full.json')) as Record<string, [string, string][]>;
  const clinc = Object.values(clincData)
    .flat()
    .map(([text]): Row => ({ text, label: 0, source: 'clinc150' }));
  const banking = csv(show(SOURCES.banking77, 'banking_data/train.csv'))
    .slice(1)
    .filter((r) => r[0]?.trim())
    .map((r): Row => ({ text: r[0]!, label: 0, source: 'banking77' }));
  const split = (rows: Row[], at: number) => [
    rows.filter((r) => bucket(r.text) < at),
    rows.filter((r) => bucket(r.text) >= at),
  ];
  const [hijackTrain, hijackVal] = split(hijack, 0.8);
  const [toolTrain, toolVal] = split(toolformer, 0.8);
  const [gsmTrain, gsmVal] = split(gsm, 0.8);
  const [cyberTrain, cyberVal] = split(cyber, 0.8);
  const [tldrTrain, tldrVal] = split(tldr, 0.8);
  const [clincTrain, clincVal] = split(clinc, 0.8);
  const [bankingTrain, bankingVal] = split(banking, 0.8);
  return {
    train: [
      ...ps('train.jsonl', 'train'),
      ...hijackTrain!,
      ...toolTrain!,
      ...gsmTrain!,
      ...cyberTrain!,
      ...tldrTrain!,
      ...clincTrain!,
      ...bankingTrain!,
    ],
    validation: [
      ...ps('val.jsonl', 'val'),
      ...hijackVal!,
      ...toolVal!,
      ...gsmVal!,
      ...cyberVal!,
      ...tldrVal!,
      ...clincVal!,
      ...bankingVal!,
    ],
    heldout: [
      ...tt('benchmarks/extraction-robustness/v1/extraction_robustness_dataset.jsonl', 'extraction'),
      ...roleplay,
    ],
    sameCollection: ps('test.jsonl', 'test'),
  };
}

/**
 * The final held-out collection, set aside before the model was fixed and evaluated once:
 * attacks = the jailbreak prompts collected from jailbreakchat.com in xz-liu/SHIELD (MIT, an older
 * commit that still carries the file); benign = sentences of the OWASP Cheat Sheet Series
 * (CC BY-SA 4.0), security prose full of "bypass", "access", "authorized", "injection", minus the
 * cheat sheets about LLMs and agents (they quote attacks on purpose) and minus code, tables and
 * headings.
 */
export function loadFinalHeldout(): Row[] {
  const [header, ...body] = csv(show(SOURCES.shield, 'jailbreak_prompts.csv'));
  const col = header!.indexOf('text');
  const attacks = body
    .filter((r) => r[col]?.trim())
    .map((r): Row => ({ text: r[col]!, label: 1, source: 'shield jailbreak_prompts' }));
  const sheets = list(SOURCES.owasp, 'cheatsheets').filter(
    (p) => p.endsWith('.md') && !/LLM|AI_|_AI|Agent|MCP|Prompt/i.test(p),
  );
  const benign = showMany(SOURCES.owasp, sheets).flatMap((md) =>
    md
      .replace(/```[\s\S]*?```/g, '\n')
      .split('\n')
      .filter((l) => l.trim() && !/^\s*(?:#|\||<|!\[| {4})/.test(l))
      .map((l) =>
        l
          .replace(/^\s*(?:[-*+]|\d+\.)\s+/, '')
          .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
          .replace(/[*_`]/g, ''),
      )
      .flatMap((l) => l.split(/(?<=[.!?])\s+(?=[A-Z])/))
      .filter((l) => {
        const n = l.split(/\s+/).length;
        return n >= 6 && n <= 60;
      })
      .map((text): Row => ({ text, label: 0, source: 'owasp cheat sheets' })),
  );
  return [...attacks, ...benign.filter((r) => bucket(r.text) < 0.25)];
}

/**
 * Short messages to an assistant, never trained on: HWU64's utterances (xliuhw/NLU-Evaluation-Data,
 * CC BY 4.0), 64 intents of a home assistant, among them "explain" ("i can not understand that"),
 * "repeat" and "quirky" chat, the kind of short remark about the bot that the learned scorer took
 * for an attack. Its ten cross-validation test folds partition the data: folds 1–5 chose the
 * scorer's word floor (`MODEL_MIN_WORDS`), folds 6–10 report it.
 */
export function loadShortRequests(): { choosing: Row[]; reporting: Row[] } {
  const under = 'CrossValidation/autoGeneFromRealAnno/autoGene_2018_03_22-13_01_25_169/CrossValidation';
  const paths = list(SOURCES.hwu64, under).filter((p) => /\/KFold_\d+\/testset\/csv\/[^/]+\.csv$/.test(p));
  const files = showMany(SOURCES.hwu64, paths);
  const choosing: Row[] = [];
  const reporting: Row[] = [];
  paths.forEach((path, i) => {
    const fold = Number(/KFold_(\d+)/.exec(path)![1]);
    // answerid;scenario;intent;answer_annotation;answer_from_anno;answer_from_user (the annotated
    // text, without the slot markup of answer_annotation)
    for (const line of files[i]!.split('\n').slice(1)) {
      const text = /^[^;]*;[^;]*;[^;]*;"[^"]*";"([^"]*)";/.exec(line)?.[1]?.trim();
      if (text) (fold <= 5 ? choosing : reporting).push({ text, label: 0, source: 'hwu64' });
    }
  });
  return { choosing, reporting };
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

/** Attacks flagged (tp of pos) and benign rows flagged (fp of neg) by `flag`. */
export function confusion(rows: readonly { text: string; label: number }[], flag: (text: string) => boolean) {
  let pos = 0;
  let tp = 0;
  let neg = 0;
  let fp = 0;
  for (const r of rows) {
    const hit = flag(r.text);
    if (r.label === 1) {
      pos++;
      if (hit) tp++;
    } else {
      neg++;
      if (hit) fp++;
    }
  }
  return { pos, tp, neg, fp };
}
