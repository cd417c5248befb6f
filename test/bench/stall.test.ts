/**
 * bench/stall.ts at a small size, as a test of behaviour: every case (each path, each input
 * kind, as the user's text and as the model's) gets its answer. No timing is asserted; the
 * bench itself reports the stalls (`npx tsx bench/stall.ts`).
 */
import { expect, it } from 'vitest';
import { INPUT_KINDS, PATHS, runStallCases } from '../../bench/stall.js';

it('answers every stall case at 3,000 characters, on every path', async () => {
  const rows = await runStallCases({ size: 3_000, caseTimeoutMs: 30_000 });
  expect(rows).toHaveLength(PATHS.length * Object.keys(INPUT_KINDS).length * 2);
  const unanswered = rows
    .filter((r) => r.outcome !== 'answered')
    .map((r) => `${r.path} ${r.source} ${r.kind}: ${r.outcome}`);
  expect(unanswered).toEqual([]);
}, 600_000);
