import { describe, expect, it } from 'vitest';
import { MarkdownBudget } from '../../../src/adapters/slack/markdown-budget.js';

describe('the live message’s markdown budget', () => {
  it('keeps text within the budget pending, and everything from the first overflow on in the overflow, in order', () => {
    const b = new MarkdownBudget(10);
    b.append('hello ');
    b.append('you');
    expect([b.pending, b.overflow, b.used]).toEqual(['hello you', '', 9]);
    b.append('!!'); // 11 > 10
    b.append('x'); // would fit alone, but must not jump ahead of what overflowed
    expect([b.pending, b.overflow]).toEqual(['hello you', '!!x']);
  });

  it('moves flushed text from pending to shown, and back to pending for a new message', () => {
    const b = new MarkdownBudget(100);
    b.append('abc');
    b.append('def');
    b.flushed('abc');
    expect([b.shown, b.pending, b.live]).toEqual(['abc', 'def', 'abcdef']);
    expect(b.flushAll()).toBe('def');
    expect([b.shown, b.pending, b.empty]).toEqual(['abcdef', '', false]);
    b.unflush();
    expect([b.shown, b.pending]).toEqual(['', 'abcdef']);
  });

  it('a continuation message takes what was not shown, as much as fits, cut after a space near the end', () => {
    const b = new MarkdownBudget(10);
    b.append('abc ');
    b.flushAll();
    b.append('def');
    b.append(' ghijk lmnopq rs');
    expect([b.shown, b.pending, b.overflow]).toEqual(['abc ', 'def', ' ghijk lmnopq rs']);
    b.nextMessage();
    // 'def ghijk ' ends with a space within the last fifth: the cut is there, nothing lost or repeated.
    expect([b.shown, b.pending, b.overflow]).toEqual(['', 'def ghijk ', 'lmnopq rs']);
    b.flushAll();
    b.nextMessage();
    expect([b.shown, b.pending, b.overflow]).toEqual(['', 'lmnopq rs', '']);
    b.append('!');
    expect([b.pending, b.overflow]).toEqual(['lmnopq rs!', '']);
  });

  it('counts what is shown against the budget', () => {
    const b = new MarkdownBudget(6);
    b.append('abcd');
    b.flushAll();
    b.append('ef');
    b.append('g');
    expect([b.shown, b.pending, b.overflow]).toEqual(['abcd', 'ef', 'g']);
  });
});
