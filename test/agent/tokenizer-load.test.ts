/**
 * The tokenizer's tables (about 45 MB resident) load at the first count, not when the core is
 * imported: an idle process that has answered nothing does not hold them (docs/performance.md).
 * They are built from the package's o200k data file, and must be the package's own table.
 */
import { readFileSync } from 'node:fs';
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

it('builds the same o200k table as gpt-tokenizer ships, and counts what the package counts', async () => {
  const require = createRequire(import.meta.url);
  const { countTokens, o200kRanks } = await import('../../src/contract/tokens.js');
  const ours = o200kRanks(readFileSync(require.resolve('gpt-tokenizer/data/o200k_base.tiktoken'), 'latin1'));
  const theirs = (require('gpt-tokenizer/cjs/bpeRanks/o200k_base') as { default: (string | number[])[] }).default;
  expect(ours.length).toBe(theirs.length);
  expect(ours).toEqual(theirs);
  const pkg = require('gpt-tokenizer') as { countTokens(text: string, opts?: object): number };
  for (const text of [
    'hello world',
    '\uFEFFusing namespace std;',
    'Ünïcödé, 日本語のテキスト, emoji 🚀🔥 and a <|endoftext|> typed by a user',
    'function f(x) {\n  return x * 2; // double\n}\n',
    ' '.repeat(50) + 'indented',
  ])
    expect(countTokens(text), text).toBe(pkg.countTokens(text, { disallowedSpecial: new Set() }));
});
