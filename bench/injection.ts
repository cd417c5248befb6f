/**
 * The prompt-injection detector (src/security/injection.ts: rules + learned scorer) on PIGuard's labelled sets
 * (test/fixtures/prompt-injection, MIT): recall per injection source, false-positive rate per
 * benign source, and the two targets.
 *
 *   npx tsx bench/injection.ts [--misses] [--write]
 *
 * --misses lists what was missed and what was wrongly flagged; --write stores the learned scorer's
 * table in data/injection/bench-figures.json and the docs' `bench:injection-*` blocks (README,
 * docs/injection-detector.md), which test/docs-figures.test.ts checks. It needs the mirrors
 * (data/injection/SOURCES.md); without --write it says whether the docs still match.
 *
 * Targets (see the security issue's note): recall ≥ 90% on direct injections (PINT public,
 * internal and jailbreak); false positives ≤ 5% on NotInject. BIPIA's rows are *indirect*
 * injections ("Translate your response into Spanish."): ordinary requests unless they sit in a
 * document or a tool's output, where every tool output is fenced as data whatever the detector
 * says. They are reported, not targeted.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { detectInjection } from '../src/security/injection.js';
import { decodeModel, loadInjectionModel, MODEL_URL, scoreWithModel } from '../src/security/injection-model.js';
import { clean } from '../src/security/sanitize.js';
import { FIGURES_FILE, injectionDocBlocks, measureInjection } from './injection-figures.js';
import { writeOrCheck } from './lib/doc-blocks.js';

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

// ── The learned scorer: rules alone vs rules + model, on every set (held-out and seen) ──
const measured = measureInjection();
console.log(
  `\nlearned scorer: model file ${(model.weights.length / 1024).toFixed(0)} KiB, load ${loadMs.toFixed(1)} ms, threshold ${model.threshold.toFixed(3)}, from ${measured.modelMinWords} words up`,
);
const cell = (a: number, b: number) => (b ? `${pct(a, b)} (${a}/${b})` : '-');
console.log(
  `${'set'.padEnd(20)} ${'recall rules'.padEnd(18)} ${'rules+model'.padEnd(18)} ${`floor ${measured.formerModelMinWords}`.padEnd(18)} ${'FP rules'.padEnd(18)} ${'FP rules+model'.padEnd(18)} FP floor ${measured.formerModelMinWords}`,
);
for (const s of measured.sets) {
  console.log(
    `${s.id.padEnd(20)} ${cell(s.rules.tp, s.rules.pos).padEnd(18)} ${cell(s.combined.tp, s.combined.pos).padEnd(18)} ${cell(s.formerFloor.tp, s.formerFloor.pos).padEnd(18)} ${cell(s.rules.fp, s.rules.neg).padEnd(18)} ${cell(s.combined.fp, s.combined.neg).padEnd(18)} ${cell(s.formerFloor.fp, s.formerFloor.neg)}`,
  );
}
if (process.argv.includes('--write'))
  writeFileSync(new URL(`../${FIGURES_FILE}`, import.meta.url), `${JSON.stringify(measured, null, 2)}\n`);
console.log(writeOrCheck(injectionDocBlocks(measured), 'npx tsx bench/injection.ts'));
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
