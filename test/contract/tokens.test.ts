/**
 * Token counting is bounded by the length of the text: a long run without spaces (CJK prose,
 * emoji, repeated punctuation) is counted in pieces, and the count stays within the error
 * src/contract/tokens.ts states of what the encoder counts on the whole text.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { countTokens, countTokensInSlices } from '../../src/contract/tokens.js';

const require = createRequire(import.meta.url);
const pkg = require('gpt-tokenizer') as { countTokens(text: string, options?: object): number };
/** What the encoder counts on the whole text in one call (quadratic on a long run: keep these short). */
const exact = (text: string) => pkg.countTokens(text, { disallowedSpecial: new Set() });

/**
 * Chinese prose as one run without spaces or punctuation: the letters of TypeScript's own
 * Simplified Chinese messages (ordinary technical text, a realistic mix of characters).
 */
function chineseRun(length: number): string {
  const messages = require('typescript/lib/zh-cn/diagnosticMessages.generated.json') as Record<string, string>;
  const letters = Object.values(messages)
    .join('')
    .replace(/[^\p{L}]|[A-Za-z]/gu, '');
  return letters.repeat(Math.ceil(length / letters.length)).slice(0, length);
}

/** A deterministic spread of emoji (no two neighbours alike), `count` of them. */
function emojiRun(count: number): string {
  return Array.from({ length: count }, (_, i) => String.fromCodePoint(0x1f300 + ((i * 37) % 700))).join('');
}

const within = (ours: number, theirs: number, ratio: number) => {
  expect(ours).toBeGreaterThanOrEqual(theirs);
  expect((ours - theirs) / theirs).toBeLessThanOrEqual(ratio);
};

describe('countTokens on long texts', () => {
  it('counts English prose and code exactly as the encoder does on the whole text', () => {
    const architecture = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
    expect(architecture.length).toBeGreaterThan(10_000);
    expect(countTokens(architecture)).toBe(exact(architecture));
    const loop = readFileSync(new URL('../../src/agent/loop.ts', import.meta.url), 'utf8');
    expect(countTokens(loop)).toBe(exact(loop));
    // The README has long runs without spaces (URLs, table rules): within the stated error.
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    within(countTokens(readme), exact(readme), 0.001);
  });

  it('counts a long run of Chinese, emoji or punctuation within 1% of the exact count', () => {
    // Up to 4,000 characters of runs are counted in full (past that they are sampled, below).
    const chinese = chineseRun(4_000);
    within(countTokens(chinese), exact(chinese), 0.01);
    const emoji = emojiRun(2_000);
    within(countTokens(emoji), exact(emoji), 0.01);
    for (const unit of ['[', '<!a^', '<#C1|', '<@U1|', '  '])
      within(countTokens(unit.repeat(3_000)), exact(unit.repeat(3_000)), 0.01);
  });

  it('counts 100,000 characters of Chinese, emoji or mixed text in one call, within 3% of counting them in full (measured within 2%)', () => {
    // One call on a whole run took minutes (the encoder is quadratic in a run's length, and slow
    // per character of CJK): past 4,000 characters of runs, their pieces are sampled.
    const inFull = (text: string) => {
      let tokens = 0;
      for (let at = 0; at < text.length; at += 4_000) tokens += countTokens(text.slice(at, at + 4_000));
      return tokens;
    };
    const chinese = chineseRun(100_000);
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const mixed = Array.from({ length: 300 }, (_, i) =>
      i % 2 ? chinese.slice(i * 300, i * 300 + 300) : readme.slice(i * 300, i * 300 + 300),
    ).join('');
    for (const text of [chinese, emojiRun(50_000), mixed]) {
      const tokens = countTokens(text);
      const full = inFull(text);
      expect(Math.abs(tokens - full) / full).toBeLessThan(0.03);
      // Remembered: the second count of the same text is the same number.
      expect(countTokens(text)).toBe(tokens);
    }
  });

  it('counts a long text a slice at a time, letting the event loop turn between slices, to the same count', async () => {
    const chinese = chineseRun(30_000);
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const text of [chinese, readme, emojiRun(10_000)]) {
      // Counts are remembered by text: the two calls get texts no call counted before, which
      // differ only in a last word of one token.
      let turns = 0;
      let turn = setImmediate(function again() {
        turns++;
        turn = setImmediate(again);
      });
      const sliced = await countTokensInSlices(`${text} a`);
      clearImmediate(turn);
      expect(turns).toBeGreaterThan(0);
      expect(sliced).toBe(countTokens(`${text} b`));
    }
  });
});
