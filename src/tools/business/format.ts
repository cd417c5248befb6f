import type { z } from 'zod';
import type { workingHoursRow } from '../../data/rows.js';

/** Prices carry no currency in the data: `120`, `95.50`, or a dash when unknown. */
export function formatPrice(price: number | null): string {
  if (price === null) return '—';
  return Number.isInteger(price) ? String(price) : price.toFixed(2);
}

export function formatMinutes(minutes: number | null): string {
  return minutes === null ? '—' : `${minutes} min`;
}

const localDate = new Intl.DateTimeFormat('en-GB', {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});

/** `2026-12-21 10:30` (already in the business's time zone) → `Mon, 21 Dec 2026, 10:30`. */
export function formatLocal(bookingLocal: string): string {
  const [date, time] = bookingLocal.split(' ');
  const day = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(day.getTime()) ? bookingLocal : `${localDate.format(day)}, ${time ?? ''}`.replace(/, $/, '');
}

/** `late_arrival` → `late arrival` */
export function topicLabel(topic: string): string {
  return topic.replace(/[_-]+/g, ' ').trim();
}

type HoursRow = z.infer<typeof workingHoursRow>;

/** One line per day in week order: `07:00–12:30, 13:30–19:00` or `Closed`. */
export function hoursByDay(rows: readonly HoursRow[]): { day: string; hours: string }[] {
  const days = new Map<string, { index: number; intervals: string[] }>();
  for (const r of rows) {
    const entry = days.get(r.day) ?? { index: r.day_index, intervals: [] };
    if (!r.is_closed && r.opens && r.closes) entry.intervals.push(`${r.opens}–${r.closes}`);
    days.set(r.day, entry);
  }
  return [...days.entries()]
    .sort(([, a], [, b]) => a.index - b.index)
    .map(([day, e]) => ({ day: capitalize(day), hours: e.intervals.length ? e.intervals.join(', ') : 'Closed' }));
}

export function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The digits of a phone number, for a "has enough digits" check and log-safe hints. */
export function phoneDigits(phone: string): string {
  return phone.replace(/\D/g, '');
}

/** A phone number as a guest sees it: only its last three digits, `•••• ••• 678`. */
export function maskPhone(phone: string): string {
  const last = phoneDigits(phone).slice(-3);
  return last ? `•••• ••• ${last}` : '••••';
}
