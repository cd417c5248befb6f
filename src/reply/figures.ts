/**
 * Figures as people read them, wherever we show usage (the operator console, Slack's App Home):
 * counts with thousands separators, US dollars with cents, and a fraction of a cent to four places.
 */

/** `1234.4` → `1,234`. */
export const formatCount = (n: number): string => Math.round(n).toLocaleString('en-US');

/** `0` → `$0`, `0.0034` → `$0.0034`, `1234.5` → `$1,234.50`. */
export const formatUsd = (n: number): string =>
  n === 0
    ? '$0'
    : n < 0.01
      ? `$${n.toFixed(4)}`
      : `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
