/**
 * The `date_range` filter: one short string the model can write without a calendar
 * (`recent`, `last_30_days`, `this_year`, `2026-05`, `2026-01-01..2026-03-31`). It is
 * kept as written in the thread's active filters and resolved against the turn's clock
 * on every search, so "recent" stays recent in a thread that lives for weeks.
 */

export interface DateBounds {
  /** Inclusive `YYYY-MM-DD`, or undefined for "no lower bound". */
  from?: string;
  to?: string;
  /** For people: "last 30 days (2026-10-02 – 2026-11-01)". */
  label: string;
}

/** How far back "recent" reaches: about one quarter of campaigns. */
export const RECENT_DAYS = 90;
const MAX_DAYS = 3_660;
const DAY_MS = 86_400_000;

export const DATE_RANGE_HELP =
  'Use recent, today, last_N_days / last_N_weeks / last_N_months / last_N_years, this_month, last_month, this_year, last_year, ' +
  'a year (2026), a month (2026-05), a day (2026-05-17), or a range FROM..TO of those (either end may be empty).';

export type DateRangeResult = { ok: true; bounds: DateBounds } | { ok: false; error: string };

/** Resolves a date_range spec against `today` (UTC). Never throws. */
export function parseDateRange(spec: string, today: Date): DateRangeResult {
  const raw = spec.trim().toLowerCase();
  const fail = (): DateRangeResult => ({
    ok: false,
    error: `date_range "${spec.slice(0, 40)}" is not understood. ${DATE_RANGE_HELP}`,
  });
  if (!raw) return fail();
  const end = isoDay(today);

  if (raw.includes('..')) {
    const [left = '', right = '', ...rest] = raw.split('..').map((s) => s.trim());
    if (rest.length || (!left && !right)) return fail();
    const from = left ? calendarSpan(left) : undefined;
    const to = right ? calendarSpan(right) : undefined;
    if ((left && !from) || (right && !to)) return fail();
    if (from && to && from.from > to.to)
      return { ok: false, error: `date_range "${spec.slice(0, 40)}" ends before it starts.` };
    return { ok: true, bounds: withLabel(from?.from, to?.to) };
  }

  const words = raw.replace(/[\s-]+/g, '_');
  if (words === 'recent' || words === 'recently' || words === 'latest') {
    return {
      ok: true,
      bounds: {
        from: daysBefore(today, RECENT_DAYS - 1),
        to: end,
        label: `recent: last ${RECENT_DAYS} days (${daysBefore(today, RECENT_DAYS - 1)} – ${end})`,
      },
    };
  }
  if (words === 'today') return { ok: true, bounds: { from: end, to: end, label: `today (${end})` } };
  const last = /^(?:last|past)_(\d{1,4})_(day|week|month|year)s?$/.exec(words);
  if (last) {
    const n = Number(last[1]);
    const unit = last[2] as 'day' | 'week' | 'month' | 'year';
    const days = n * { day: 1, week: 7, month: 30, year: 365 }[unit];
    if (n < 1 || days > MAX_DAYS) return fail();
    const from = daysBefore(today, days - 1);
    return { ok: true, bounds: { from, to: end, label: `last ${n} ${unit}${n === 1 ? '' : 's'} (${from} – ${end})` } };
  }
  const y = today.getUTCFullYear();
  const m = today.getUTCMonth();
  const named: Record<string, [Date, Date]> = {
    this_month: [new Date(Date.UTC(y, m, 1)), today],
    last_month: [new Date(Date.UTC(y, m - 1, 1)), new Date(Date.UTC(y, m, 0))],
    this_year: [new Date(Date.UTC(y, 0, 1)), today],
    last_year: [new Date(Date.UTC(y - 1, 0, 1)), new Date(Date.UTC(y - 1, 11, 31))],
  };
  const span = named[words];
  if (span) {
    const [from, to] = span.map(isoDay) as [string, string];
    return { ok: true, bounds: { from, to, label: `${words.replace('_', ' ')} (${from} – ${to})` } };
  }
  const single = calendarSpan(raw);
  if (single) return { ok: true, bounds: withLabel(single.from, single.to) };
  return fail();
}

const NO_DATE = new Set(['', 'any', 'all', 'any_time', 'anytime', 'all_time']);

/** `''` and `any` (in a follow-up) drop the date filter instead of setting one. */
export function isNoDate(spec: string): boolean {
  return NO_DATE.has(
    spec
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_'),
  );
}

/** Whether a spec parses (for the zod refinement; the clock does not matter). */
export function isDateRange(spec: string): boolean {
  return parseDateRange(spec, new Date(Date.UTC(2000, 0, 1))).ok;
}

/** `2026` → the year, `2026-05` → the month, `2026-05-17` → the day; undefined for anything else. */
function calendarSpan(text: string): { from: string; to: string } | undefined {
  const match = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$/.exec(text);
  if (!match) return undefined;
  const year = Number(match[1]);
  if (year < 1900 || year > 2200) return undefined;
  if (match[2] === undefined) return { from: `${year}-01-01`, to: `${year}-12-31` };
  const month = Number(match[2]);
  if (month < 1 || month > 12) return undefined;
  if (match[3] === undefined) {
    return { from: isoDay(new Date(Date.UTC(year, month - 1, 1))), to: isoDay(new Date(Date.UTC(year, month, 0))) };
  }
  const day = Number(match[3]);
  const date = new Date(Date.UTC(year, month - 1, day));
  // Date.UTC rolls 2026-02-30 over to March: a real calendar day maps back to itself.
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  const iso = isoDay(date);
  return { from: iso, to: iso };
}

function withLabel(from: string | undefined, to: string | undefined): DateBounds {
  const label = from && to ? (from === to ? from : `${from} – ${to}`) : from ? `since ${from}` : `until ${to}`;
  return { ...(from ? { from } : {}), ...(to ? { to } : {}), label };
}

function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function daysBefore(today: Date, days: number): string {
  return isoDay(new Date(today.getTime() - days * DAY_MS));
}
