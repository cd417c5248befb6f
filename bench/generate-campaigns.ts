/**
 * Synthetic campaigns for benchmarks: `npx tsx bench/generate-campaigns.ts [count] [out.jsonl]`
 * writes `count` (default 100,000) campaigns as JSONL, ready for
 * `npm run import -- campaigns out.jsonl`. Rows come from the demo generator with
 * their own seed and key prefix, so they read like real ads and are deterministic.
 *
 * Also exports `hashEmbedding`, a deterministic stand-in for an embedding model
 * (feature hashing of words and word pairs) used by the benchmark and the tests: texts
 * sharing words get close vectors, which is all a search benchmark needs.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { generateCampaigns, type CampaignInput } from '../src/data/demo/campaigns.js';
import { DEMO_ANCHOR } from '../src/data/demo/prng.js';

export function benchCampaigns(count: number, seed = 42, anchor = DEMO_ANCHOR): Generator<CampaignInput> {
  return generateCampaigns({ anchor, count, seed, keyPrefix: `bench${seed}` });
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const STOP = new Set([
  'the',
  'a',
  'an',
  'and',
  'or',
  'of',
  'to',
  'in',
  'on',
  'for',
  'with',
  'your',
  'you',
  'is',
  'are',
  'at',
  'by',
  'it',
  'we',
  'our',
]);

/** A unit vector of `dims` numbers from the words of `text` (same text, same vector). */
export function hashEmbedding(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  const words = text
    .toLowerCase()
    .split(/[^a-z0-9æøå]+/)
    .filter((w) => w.length > 1 && !STOP.has(w))
    .map((w) => (w.length > 4 && w.endsWith('s') ? w.slice(0, -1) : w));
  const features = [...words, ...words.slice(1).map((w, i) => `${words[i]} ${w}`)];
  for (const f of features) {
    const h = fnv1a(f);
    const weight = f.includes(' ') ? 0.5 : 1;
    v[h % dims]! += (h & 0x80000000 ? -1 : 1) * weight;
    v[(h >>> 8) % dims]! += (h & 0x40000000 ? -1 : 1) * weight * 0.5;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

/** An `embed` function over hashEmbedding, shaped like LlmClient.embed. */
export function hashEmbedder(dims: number): (texts: string[]) => Promise<number[][]> {
  return (texts) => Promise.resolve(texts.map((t) => hashEmbedding(t, dims)));
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 100_000);
  const out = process.argv[3] ?? 'bench-campaigns.jsonl';
  const stream = createWriteStream(out);
  let n = 0;
  for (const c of benchCampaigns(count)) {
    if (!stream.write(`${JSON.stringify(c)}\n`)) await once(stream, 'drain');
    n++;
  }
  stream.end();
  await once(stream, 'finish');
  console.log(`wrote ${n} campaigns to ${out}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
