/**
 * The tokenizer's tables (about 55 MB resident) load at the first count, not when the core is
 * imported: an idle process that has answered nothing does not hold them (docs/performance.md).
 */
import { createRequire } from 'node:module';
import { expect, it } from 'vitest';

const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('gpt-tokenizer'));

it('loads the tokenizer at the first count, and counts as before', async () => {
  const { countTokens, countMessageTokens } = await import('../../src/contract/tokens.js');
  await import('../../src/agent/history.js');
  expect(loaded()).toBe(false);
  expect(countTokens('hello world')).toBe(2);
  expect(loaded()).toBe(true);
  // A long text is remembered with its count: the same answer the second time.
  const long = 'The quick brown fox jumps over the lazy dog. '.repeat(40);
  expect(countTokens(long)).toBe(countTokens(long));
  expect(countTokens(long)).toBe(401);
  expect(countMessageTokens([{ role: 'user', content: long }])).toBe(405);
});
