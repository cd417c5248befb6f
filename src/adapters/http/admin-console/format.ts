import { formatCount, formatUsd } from '../../../reply/figures.js';

/** How the console writes figures and times: the same everywhere, so pages read alike. */

export const int = formatCount;
export const usd = formatUsd;

/** An axis label: 1.2M, 3.4k, 999. */
export const compact = (n: number): string =>
  n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 1_000 ? `${(n / 1_000).toFixed(1)}k` : int(n);

/** A share as a whole percentage; a dash when there is nothing to share. */
export const pct = (part: number, whole: number): string => (whole > 0 ? `${Math.round((part / whole) * 100)}%` : '—');

/** `1 turn`, `3 turns`, `2 entries`. */
export const plural = (n: number, one: string, many = `${one}s`): string => `${int(n)} ${n === 1 ? one : many}`;

/** An ISO timestamp to the second, as UTC: `2026-11-20 10:11:12`. */
export const utcSecond = (iso: string): string => iso.slice(0, 19).replace('T', ' ');

/** An ISO timestamp to the minute, as UTC: `2026-11-20 10:11`. */
export const utcMinute = (iso: string): string => iso.slice(0, 16).replace('T', ' ');

/** A duration: `850 ms` below a second, `12.3 s` above. */
export const duration = (ms: number): string => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);
