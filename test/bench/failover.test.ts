/**
 * bench/failover.ts with a few turns, as a test of behaviour: every turn is answered by the
 * fallback, and the dead endpoint behind an open breaker gets no connection. No timing is
 * asserted; the bench reports it (`npx tsx bench/failover.ts`).
 */
import { expect, it } from 'vitest';
import { runFailoverBench } from '../../bench/failover.js';

it('answers every failover bench turn, and an open breaker keeps every call off the dead endpoint', async () => {
  const figures = await runFailoverBench(2);
  expect(figures.turns).toBe(2);
  expect(Number.isFinite(figures.firstToken.max)).toBe(true);
  expect(figures.blackHoleConnections).toBe(0);
}, 120_000);
