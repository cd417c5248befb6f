/**
 * Figures the docs quote from a bench cannot drift from it (issue 40): every deterministic figure
 * (the injection detector's counts, token counts) sits in a `bench:NAME` block that the bench
 * writes with `--write`, and this test recomputes what it can and compares.
 *
 * - Injection: the blocks in README and docs/injection-detector.md must be exactly what
 *   data/injection/bench-figures.json renders to, and every set of that file whose rows are in
 *   this repository (NotInject, valid.json, the committed held-out rows) is recomputed with the
 *   detector as it is now. The sets read from the mirrors (final held-out, Tensor Trust, HWU64,
 *   validation) cannot be recomputed here; a change to the detector moves the committed sets too,
 *   and `npx tsx bench/injection.ts --write` (with the mirrors) refreshes them all together.
 * - Tokens: the campaign question's first turn (README) and the competitor tool against preloading
 *   (docs/competitors.md) are recomputed through the real app, as bench/tokens.ts does.
 *
 * Timing and memory figures (docs/performance.md) depend on the machine: quoted as measured, never
 * tested. On a failure, run the bench named in the message with `--write` and review the diff.
 */
import { describe, expect, it } from 'vitest';
import { injectionDocBlocks, measureInjection, readFigures } from '../bench/injection-figures.js';
import { readBlocks } from '../bench/lib/doc-blocks.js';
import { tokenDocBlocks } from '../bench/tokens/doc-blocks.js';
import { MODEL_MIN_WORDS } from '../src/security/injection.js';
import { loadInjectionModel } from '../src/security/injection-model.js';

describe('injection detector figures in the docs', () => {
  const stored = readFigures();

  it('README and docs/injection-detector.md say what data/injection/bench-figures.json says', () => {
    const expected = injectionDocBlocks(stored);
    expect(readBlocks(expected), 'run: npx tsx bench/injection.ts --write').toEqual(expected);
  });

  it('the stored figures are the detector as it is now, on every set committed to this repository', () => {
    expect({ modelMinWords: stored.modelMinWords, threshold: stored.threshold }).toEqual({
      modelMinWords: MODEL_MIN_WORDS,
      threshold: loadInjectionModel().threshold,
    });
    const now = measureInjection({ committedOnly: true });
    expect(now.sets.map((s) => s.id)).toEqual(['roleplay', 'promptshield-test', 'notinject', 'valid', 'pint', 'bipia']);
    for (const set of now.sets)
      expect(
        stored.sets.find((s) => s.id === set.id),
        'run: npx tsx bench/injection.ts --write',
      ).toEqual(set);
  }, 120_000);
});

describe('token figures in the docs', () => {
  it('README (first turn) and docs/competitors.md (lazy tool against preloading) say what the bench counts', async () => {
    const expected = await tokenDocBlocks();
    expect(readBlocks(expected), 'run: npx tsx bench/tokens.ts --write').toEqual(expected);
  }, 300_000);
});
