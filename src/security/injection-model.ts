/**
 * The learned half of the prompt-injection detector: a logistic regression over hashed word
 * and character n-grams, trained offline on public prompt-injection, jailbreak and benign
 * collections by `bench/train-injection-model.ts` (sources and figures in
 * docs/injection-detector.md). The weights are one small binary file,
 * `assets/injection-model.bin`, read once per process; scoring a chat message is a few
 * thousand hash lookups (well under a millisecond) and never touches the network.
 *
 * The featurizer below is shared by the trainer and the runtime, so what is scored is exactly
 * what was trained. Changing it means retraining (the file records a feature version that the
 * loader checks).
 */
import { readFileSync } from 'node:fs';

/** Bumped whenever {@link features} changes; a model file of another version is refused. */
export const FEATURE_VERSION = 1;
/** Only this many characters are featurised: instructions that matter sit early. */
export const MODEL_SCAN_CHARS = 4_000;

const MAGIC = 'SBIM';

/** FNV-1a 32-bit, seeded so word and character n-grams land in different places. */
function fnv(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** NFKC, lowercase, digits folded, whitespace collapsed. */
export function normalizeForModel(text: string): string {
  return text
    .slice(0, MODEL_SCAN_CHARS)
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\d/g, '0')
    .replace(/\s+/g, ' ')
    .trim();
}

const WORD = /[\p{L}\p{N}_']+|[^\s\p{L}\p{N}_']/gu;

/**
 * The feature indices of a text (mod `2 ** bits`) with their values: binary presence of word
 * unigrams and bigrams and of character 3–5-grams, scaled to unit length.
 */
export function features(text: string, bits: number): { index: Int32Array; value: number } {
  const norm = normalizeForModel(text);
  const mask = (1 << bits) - 1;
  const seen = new Set<number>();
  const words = norm.match(WORD) ?? [];
  for (let i = 0; i < words.length; i++) {
    seen.add(fnv(words[i]!, 1) & mask);
    if (i > 0) seen.add(fnv(`${words[i - 1]!} ${words[i]!}`, 2) & mask);
  }
  const padded = ` ${norm} `;
  for (let n = 3; n <= 5; n++) {
    for (let i = 0; i + n <= padded.length; i++) seen.add(fnv(padded.slice(i, i + n), 10 + n) & mask);
  }
  seen.add(mask); // a bias-like "always on" feature keeps empty texts well defined
  const index = Int32Array.from(seen);
  return { index, value: 1 / Math.sqrt(index.length) };
}

export interface InjectionModel {
  bits: number;
  /** Logistic-regression intercept. */
  bias: number;
  /** Probability at or over which the model alone flags a text (chosen on the validation split). */
  threshold: number;
  /** Quantised weights: weight = q * scale. */
  weights: Int8Array;
  scale: number;
  /** Free-form facts about the training run (date, rows, figures). */
  meta: Record<string, unknown>;
}

/** The model's probability that `text` is a prompt injection or jailbreak. */
export function scoreWithModel(model: InjectionModel, text: string): number {
  const { index, value } = features(text, model.bits);
  let z = model.bias;
  const w = model.weights;
  let sum = 0;
  for (let i = 0; i < index.length; i++) sum += w[index[i]!]!;
  z += sum * model.scale * value;
  return 1 / (1 + Math.exp(-z));
}

/** The binary layout: magic, u32 header length, JSON header, then the int8 weights. */
export function encodeModel(model: InjectionModel): Buffer {
  const header = Buffer.from(
    JSON.stringify({
      version: FEATURE_VERSION,
      bits: model.bits,
      bias: model.bias,
      threshold: model.threshold,
      scale: model.scale,
      meta: model.meta,
    }),
    'utf8',
  );
  const len = Buffer.alloc(4);
  len.writeUInt32LE(header.length);
  return Buffer.concat([Buffer.from(MAGIC, 'ascii'), len, header, Buffer.from(model.weights.buffer)]);
}

export function decodeModel(bytes: Buffer): InjectionModel {
  if (bytes.subarray(0, 4).toString('ascii') !== MAGIC) throw new Error('not an injection model file');
  const len = bytes.readUInt32LE(4);
  const header = JSON.parse(bytes.subarray(8, 8 + len).toString('utf8')) as {
    version: number;
    bits: number;
    bias: number;
    threshold: number;
    scale: number;
    meta: Record<string, unknown>;
  };
  if (header.version !== FEATURE_VERSION)
    throw new Error(`injection model has feature version ${header.version}, this code reads ${FEATURE_VERSION}`);
  const body = bytes.subarray(8 + len);
  if (body.length !== 1 << header.bits) throw new Error('injection model file is truncated');
  const weights = new Int8Array(body.length);
  weights.set(new Int8Array(body.buffer, body.byteOffset, body.length));
  return { ...header, weights };
}

export const MODEL_URL = new URL('../../assets/injection-model.bin', import.meta.url);

let cached: InjectionModel | undefined;
/** The committed model, read on first use and kept for the life of the process. */
export function loadInjectionModel(): InjectionModel {
  cached ??= decodeModel(readFileSync(MODEL_URL));
  return cached;
}
