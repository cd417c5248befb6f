import { describe, expect, it } from 'vitest';
import { formatCount, formatUsd } from '../../src/reply/figures.js';

describe('figures people read (console, App Home)', () => {
  it('counts with thousands separators, rounded', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(1_234.4)).toBe('1,234');
    expect(formatCount(2_500_000)).toBe('2,500,000');
  });

  it('dollars: nothing as $0, a fraction of a cent to four places, else cents', () => {
    expect(formatUsd(0)).toBe('$0');
    expect(formatUsd(0.0034)).toBe('$0.0034');
    expect(formatUsd(0.5)).toBe('$0.50');
    expect(formatUsd(1_234.5)).toBe('$1,234.50');
  });
});
