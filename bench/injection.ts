/**
 * The prompt-injection detector (src/security/injection.ts: rules + learned scorer) on PIGuard's labelled sets
 * (test/fixtures/prompt-injection, MIT): recall per injection source, false-positive rate per
 * benign source, and the two targets.
 *
 *   npx tsx bench/injection.ts [--misses]     --misses lists what was missed and what was wrongly flagged
 *
 * Targets (see the security issue's note): recall ≥ 90% on direct injections (PINT public,
 * internal and jailbreak); false positives ≤ 5% on NotInject. BIPIA's rows are *indirect*
 * injections ("Translate your response into Spanish."): ordinary requests unless they sit in a
 * document or a tool's output, where every tool output is fenced as data whatever the detector
 * says. They are reported, not targeted.
 */
import { readFileSync } from 'node:fs';
import { detectInjection, detectWithRules } from '../src/security/injection.js';
import { decodeModel, loadInjectionModel, MODEL_URL, scoreWithModel } from '../src/security/injection-model.js';
import {
  buildSplits,
  confusion,
  dedupe,
  loadFinalHeldout,
  mirrorsPresent,
  type Row as DataRow,
} from './injection-data.js';
import { normalizeForModel } from '../src/security/injection-model.js';
import { clean } from '../src/security/sanitize.js';

const dir = new URL('../test/fixtures/prompt-injection/', import.meta.url);
const read = <T>(name: string): T => JSON.parse(readFileSync(new URL(name, dir), 'utf8')) as T;
const showMisses = process.argv.includes('--misses');

interface Row {
  prompt: string;
  label: 0 | 1;
  set: string;
}
const rows: Row[] = read<{ prompt: string; label: 0 | 1; source: string }[]>('valid.json').map((r) => ({
  prompt: r.prompt,
  label: r.label,
  set: `valid.json ${r.source}`,
}));
for (const name of ['NotInject_one', 'NotInject_two', 'NotInject_three']) {
  for (const r of read<{ prompt: string }[]>(`${name}.json`))
    rows.push({ prompt: r.prompt, label: 0, set: `${name}.json` });
}

const DIRECT = /PINT_(public_prompt_injection|internal_prompt_injection|jailbreak)$/;
const loadStarted = performance.now();
const model = decodeModel(readFileSync(MODEL_URL));
const loadMs = performance.now() - loadStarted;
loadInjectionModel();
const sets = new Map<string, { label: 0 | 1; n: number; flagged: number; misses: string[] }>();
const started = performance.now();
for (const row of rows) {
  const verdict = detectInjection(clean(row.prompt));
  const s = sets.get(row.set) ?? { label: row.label, n: 0, flagged: 0, misses: [] };
  s.n++;
  if (verdict.flagged) s.flagged++;
  if (verdict.flagged !== (row.label === 1))
    s.misses.push(
      `${verdict.score.toFixed(2)} [${verdict.families.join(',')}] ${row.prompt.slice(0, 160).replace(/\s+/g, ' ')}`,
    );
  sets.set(row.set, s);
}
const perText = (performance.now() - started) / rows.length;

const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : '-');
console.log(
  `prompt-injection detector on ${rows.length} labelled texts (${perText.toFixed(3)} ms per text, sanitizer included)\n`,
);
console.log(`${'set'.padEnd(46)} ${'kind'.padEnd(9)} ${'n'.padStart(4)}  ${'flagged'.padStart(7)}  rate`);
for (const [name, s] of [...sets].sort(([a], [b]) => a.localeCompare(b))) {
  const kind = s.label === 1 ? (DIRECT.test(name) ? 'direct' : 'indirect') : 'benign';
  console.log(
    `${name.padEnd(46)} ${kind.padEnd(9)} ${String(s.n).padStart(4)}  ${String(s.flagged).padStart(7)}  ${pct(s.flagged, s.n)} ${s.label === 1 ? 'recall' : 'false positives'}`,
  );
  if (showMisses) for (const m of s.misses) console.log(`    ${s.label === 1 ? 'missed' : 'flagged'}: ${m}`);
}
const sum = (pick: (name: string, label: 0 | 1) => boolean) => {
  let n = 0;
  let flagged = 0;
  for (const [name, s] of sets) {
    if (!pick(name, s.label)) continue;
    n += s.n;
    flagged += s.flagged;
  }
  return { n, flagged };
};
const direct = sum((name, label) => label === 1 && DIRECT.test(name));
const indirect = sum((name, label) => label === 1 && !DIRECT.test(name));
const notInject = sum((name) => /^NotInject_\w+\.json$/.test(name));
const benignValid = sum((name, label) => label === 0 && name.startsWith('valid.json'));
console.log('');
console.log(
  `direct injections (PINT public, internal, jailbreak): recall ${pct(direct.flagged, direct.n)} (${direct.flagged} of ${direct.n}), target ≥ 90% ${direct.flagged / direct.n >= 0.9 ? 'met' : 'MISSED'}`,
);
console.log(
  `NotInject (3 files, ${notInject.n} benign look-alikes): false positives ${pct(notInject.flagged, notInject.n)} (${notInject.flagged}), target ≤ 5% ${notInject.flagged / notInject.n <= 0.05 ? 'met' : 'MISSED'}`,
);
console.log(
  `benign rows of valid.json (WildGuard, PINT chat/documents/hard negatives, NotInject): false positives ${pct(benignValid.flagged, benignValid.n)} (${benignValid.flagged} of ${benignValid.n})`,
);
console.log(
  `indirect injections (BIPIA text and code, not targeted: fenced as tool output instead): ${pct(indirect.flagged, indirect.n)} (${indirect.flagged} of ${indirect.n})`,
);

// ── The learned scorer: held-out (never tuned on) vs seen, rules alone vs rules + model ──
const combined = (text: string) => detectInjection(clean(text)).flagged;
const rulesOnly = (text: string) => detectWithRules(clean(text)).flagged;
type Labelled = { text: string; label: 0 | 1 };
const figures = (rows: Labelled[], flag: (t: string) => boolean) => confusion(rows, flag);
const cell = (a: number, b: number) => (b ? `${pct(a, b)} (${a}/${b})` : '-');
const table: [string, string, Labelled[]][] = [];
const asLabelled = (rows: DataRow[]): Labelled[] => rows.map((r) => ({ text: r.text, label: r.label }));
if (mirrorsPresent()) {
  const splits = buildSplits();
  table.push([
    'held-out split (TT extraction + GPTeacher roleplay)',
    'held-out (looked at while tuning)',
    asLabelled(splits.heldout),
  ]);
  table.push(['promptshield test rows (same collection as train)', 'held-out rows', asLabelled(splits.sameCollection)]);
  table.push(['validation split (threshold chosen here)', 'seen (tuned)', asLabelled(splits.validation)]);
  // The final held-out collection: set aside before the model was fixed, evaluated once (rows equal
  // to a training, validation or held-out row after normalisation are dropped).
  const used = new Set(
    [...splits.train, ...splits.validation, ...splits.heldout, ...splits.sameCollection].map((r) =>
      normalizeForModel(r.text),
    ),
  );
  table.push([
    'final held-out (SHIELD jailbreaks + OWASP sentences)',
    'held-out, evaluated once',
    asLabelled(dedupe(loadFinalHeldout(), used)),
  ]);
} else {
  const committed = readFileSync(new URL('../data/injection/heldout.jsonl', import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Labelled);
  table.push(['committed held-out rows (mirrors absent)', 'held-out (never tuned on)', committed]);
}
const notInjectRows = rows
  .filter((r) => r.set.startsWith('NotInject'))
  .map((r) => ({ text: r.prompt, label: r.label }));
const validRows = rows.filter((r) => r.set.startsWith('valid.json')).map((r) => ({ text: r.prompt, label: r.label }));
const directRows = rows
  .filter((r) => r.set.startsWith('valid.json') && (r.label === 0 || DIRECT.test(r.set)))
  .map((r) => ({ text: r.prompt, label: r.label }));
table.push(['NotInject (3 files, benign look-alikes)', 'seen (reporting only)', notInjectRows]);
table.push(['PIGuard valid.json (all rows)', 'seen (reporting only)', validRows]);
table.push(['current bench: PINT direct + benign of valid.json', 'seen (rules written on it)', directRows]);
console.log(
  `\nlearned scorer: model file ${(model.weights.length / 1024).toFixed(0)} KiB, load ${loadMs.toFixed(1)} ms, threshold ${model.threshold.toFixed(3)}`,
);
console.log(
  `${'set'.padEnd(54)} ${'kind'.padEnd(34)} ${'recall rules'.padEnd(20)} ${'recall rules+model'.padEnd(20)} ${'FP rules'.padEnd(18)} FP rules+model`,
);
for (const [name, kind, labelled] of table) {
  const r = figures(labelled, rulesOnly);
  const c = figures(labelled, combined);
  console.log(
    `${name.padEnd(54)} ${kind.padEnd(34)} ${cell(r.tp, r.pos).padEnd(20)} ${cell(c.tp, c.pos).padEnd(20)} ${cell(r.fp, r.neg).padEnd(18)} ${cell(c.fp, c.neg)}`,
  );
}
const sample = rows.map((r) => clean(r.prompt));
let t0 = performance.now();
for (let k = 0; k < 5; k++) for (const t of sample) scoreWithModel(model, t);
const perModel = (performance.now() - t0) / (5 * sample.length);
t0 = performance.now();
for (let k = 0; k < 5; k++) for (const t of sample) detectInjection(t);
const perDetect = (performance.now() - t0) / (5 * sample.length);
console.log(
  `\nscoring time per message: model ${perModel.toFixed(3)} ms, rules + model ${perDetect.toFixed(3)} ms (mean over ${sample.length} texts ×5)`,
);
