/**
 * Trains the learned prompt-injection scorer (src/security/injection-model.ts) offline and
 * writes `assets/injection-model.bin`, `data/injection/heldout.jsonl` (the committed,
 * permissively licensed part of the held-out split, read by the tests) and
 * `data/injection/metrics.json`.
 *
 *   npx tsx bench/train-injection-model.ts [--mirrors /work/.mirror]
 *
 * Input: local git mirrors of the public repositories listed in data/injection/SOURCES.md, read
 * at the pinned commits with `git show` (no network). Splits are by source wherever a source is
 * big enough to stand alone, so the held-out figure measures a collection the model never saw:
 *
 *   train       promptshield train.jsonl (attacks + benign), Tensor Trust hijacking attacks (80%),
 *               GPTeacher toolformer prompts (80%), GSM8K questions (80%)
 *   validation  promptshield val.jsonl, the other 20% of hijacking, toolformer and GSM8K
 *               → the threshold is chosen here
 *   held-out    Tensor Trust *extraction* attacks (another benchmark, another goal) and GPTeacher
 *               roleplay prompts ("pretend you are…": another benign collection, and a hard one);
 *               promptshield test.jsonl is reported beside it as "same collection, unseen rows"
 *
 * The reporting sets (test/fixtures/prompt-injection: NotInject, PIGuard valid.json) are never
 * trained on: any training row equal to one of them after normalisation is dropped.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import {
  encodeModel,
  features,
  FEATURE_VERSION,
  scoreWithModel,
  type InjectionModel,
} from '../src/security/injection-model.js';
import { buildSplits, confusion, root, SOURCES, type Row } from './injection-data.js';

const BITS = 18;

/** Mulberry32: a seeded PRNG so a retrain gives the same file. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Logistic regression, Adagrad on sparse features, L2, classes weighted to balance. */
function train(rows: Row[], l2: number, epochs = 6, lr = 0.5) {
  const dim = 1 << BITS;
  const w = new Float64Array(dim);
  const g2 = new Float64Array(dim).fill(1e-8);
  let bias = 0;
  let bg2 = 1e-8;
  const feats = rows.map((r) => features(r.text, BITS));
  const pos = rows.filter((r) => r.label === 1).length;
  const cw = { 1: rows.length / (2 * pos), 0: rows.length / (2 * (rows.length - pos)) };
  const rowWeight = rows.map((r) => cw[r.label] * (HARD_NEGATIVE_WEIGHT[r.source] ?? 1));
  const order = rows.map((_, i) => i);
  const rand = rng(27);
  for (let e = 0; e < epochs; e++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    let loss = 0;
    for (const k of order) {
      const { index, value } = feats[k]!;
      let z = bias;
      for (const ix of index) z += w[ix]! * value;
      const p = 1 / (1 + Math.exp(-z));
      const y = rows[k]!.label;
      loss += -rowWeight[k]! * Math.log(y === 1 ? p + 1e-12 : 1 - p + 1e-12);
      const g = rowWeight[k]! * (p - y);
      for (const ix of index) {
        const gi = g * value + l2 * w[ix]!;
        const acc = g2[ix]! + gi * gi;
        g2[ix] = acc;
        w[ix] = w[ix]! - (lr * gi) / Math.sqrt(acc);
      }
      bg2 += g * g;
      bias -= (lr * g) / Math.sqrt(bg2);
    }
    console.log(`epoch ${e + 1}: mean loss ${(loss / rows.length).toFixed(4)}`);
  }
  let max = 0;
  for (const v of w) max = Math.max(max, Math.abs(v));
  const scale = max / 127;
  const weights = new Int8Array(dim);
  for (let i = 0; i < dim; i++) weights[i] = Math.round(w[i]! / scale);
  return { weights, scale, bias };
}

function rates(model: InjectionModel, rows: Row[], threshold = model.threshold) {
  return confusion(rows, (text) => scoreWithModel(model, text) >= threshold);
}

/**
 * Benign sources that share the attacks' vocabulary ("access", "authorized", "bypass", "system")
 * count more in the loss: they are the hard negatives, and few.
 */
const HARD_NEGATIVE_WEIGHT: Record<string, number> = { cybermetric: 4 };
/** The validation split's false-positive budget, overall and per benign source (chosen before training). */
const MAX_FP = 0.002;
const MAX_FP_PER_SOURCE: Record<string, number> = { cybermetric: 0 };
const DEFAULT_MAX_FP_PER_SOURCE = 0.005;
const L2_GRID = [3e-4, 1e-3, 3e-3, 1e-2];

/**
 * The lowest threshold at which the validation false positives stay within {@link MAX_FP} overall
 * and within the per-source budget for each benign source (none on CyberMetric, the
 * security-flavoured questions, which cannot then hide behind the large plain sources).
 */
function pickThreshold(model: InjectionModel, rows: Row[]): number {
  const benign = rows.filter((r) => r.label === 0).map((r) => ({ s: scoreWithModel(model, r.text), src: r.source }));
  const bySource = new Map<string, number[]>();
  for (const b of benign) bySource.set(b.src, [...(bySource.get(b.src) ?? []), b.s]);
  const cut = (scores: number[], maxFp: number) =>
    (scores.sort((a, b) => b - a)[Math.floor(scores.length * maxFp)] ?? 0) + 1e-6;
  let t = cut(
    benign.map((b) => b.s),
    MAX_FP,
  );
  for (const [src, scores] of bySource)
    t = Math.max(t, cut(scores, MAX_FP_PER_SOURCE[src] ?? DEFAULT_MAX_FP_PER_SOURCE));
  return Math.max(0.5, t);
}

function main() {
  const { train: trainRows, validation, heldout, sameCollection } = buildSplits();
  const count = (rows: Row[]) => {
    const m: Record<string, number> = {};
    for (const r of rows)
      m[`${r.source} (${r.label ? 'attack' : 'benign'})`] =
        (m[`${r.source} (${r.label ? 'attack' : 'benign'})`] ?? 0) + 1;
    return m;
  };
  console.log('train', count(trainRows));
  console.log('validation', count(validation));
  console.log('held-out', count(heldout));

  // Regularisation: each strength in the grid is trained, its threshold set on validation, and the
  // one with the best validation recall kept. Only the validation split is looked at here.
  let best: { model: InjectionModel; l2: number; recall: number } | undefined;
  for (const l2 of L2_GRID) {
    const started = performance.now();
    const { weights, scale, bias } = train(trainRows, l2);
    const model: InjectionModel = { bits: BITS, bias, scale, weights, threshold: 0.5, meta: {} };
    model.threshold = pickThreshold(model, validation);
    const v = rates(model, validation);
    console.log(
      `l2 ${l2}: trained in ${((performance.now() - started) / 1000).toFixed(1)} s, threshold ${model.threshold.toFixed(4)}, validation recall ${v.tp}/${v.pos}, FP ${v.fp}/${v.neg}`,
    );
    if (!best || v.tp / v.pos > best.recall) best = { model, l2, recall: v.tp / v.pos };
  }
  const { model, l2 } = best!;
  const figures = {
    validation: rates(model, validation),
    heldout: rates(model, heldout),
    sameCollection: rates(model, sameCollection),
  };
  model.meta = {
    trainedAt: new Date().toISOString().slice(0, 10),
    featureVersion: FEATURE_VERSION,
    l2,
    hardNegativeWeight: HARD_NEGATIVE_WEIGHT,
    thresholdRule: `validation FP ≤ ${MAX_FP * 100}% overall, ≤ ${DEFAULT_MAX_FP_PER_SOURCE * 100}% per benign source, none on CyberMetric`,
    rows: { train: trainRows.length, validation: validation.length, heldout: heldout.length },
    sources: SOURCES,
    modelOnly: figures,
  };
  console.log('threshold', model.threshold.toFixed(4), figures);
  writeFileSync(new URL('assets/injection-model.bin', root), encodeModel(model));
  mkdirSync(new URL('data/injection/', root), { recursive: true });
  writeFileSync(
    new URL('data/injection/metrics.json', root),
    `${JSON.stringify({ threshold: model.threshold, ...model.meta }, null, 2)}\n`,
  );
  // Commit only rows whose licence allows it (MIT: promptshield, GPTeacher); Tensor Trust states none.
  const committed = [...heldout.filter((r) => r.source.startsWith('gpteacher')), ...sameCollection];
  writeFileSync(
    new URL('data/injection/heldout.jsonl', root),
    committed.map((r) => JSON.stringify({ text: r.text, label: r.label, source: r.source })).join('\n') + '\n',
  );
}

main();
