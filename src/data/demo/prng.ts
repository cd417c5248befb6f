/**
 * A small seeded PRNG (mulberry32) so the demo data is the same on every machine and
 * every run: tests can name the campaigns they expect.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], inclusive. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
  /** `count` distinct items in random order. */
  sample<T>(items: readonly T[], count: number): T[];
  /** Picks by weight: [[item, weight], …]. */
  weighted<T>(items: readonly (readonly [T, number])[]): T;
}

export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(next() * items.length)] as T;
  };
  return {
    next,
    int,
    pick,
    chance: (p) => next() < p,
    sample<T>(items: readonly T[], count: number): T[] {
      const pool = [...items];
      const out: T[] = [];
      while (out.length < count && pool.length > 0) out.push(pool.splice(Math.floor(next() * pool.length), 1)[0] as T);
      return out;
    },
    weighted<T>(items: readonly (readonly [T, number])[]): T {
      const total = items.reduce((s, [, w]) => s + w, 0);
      let r = next() * total;
      for (const [item, w] of items) {
        r -= w;
        if (r < 0) return item;
      }
      return pick(items)[0];
    },
  };
}

/** Fills `{name}` slots from a record. */
export function fill(template: string, slots: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => (k in slots ? String(slots[k]) : m));
}

/** `YYYY-MM-DD` of a date `days` before `anchor` (UTC). */
export function daysBefore(anchor: Date, days: number): string {
  return new Date(anchor.getTime() - days * 86_400_000).toISOString().slice(0, 10);
}

/** Today at 00:00 UTC: the default anchor for demo dates. */
export function todayUtc(): Date {
  return new Date(new Date().toISOString().slice(0, 10) + 'T00:00:00Z');
}

/** The fixed anchor tests use, so dates in the demo data are the same on every run. */
export const DEMO_ANCHOR = new Date('2026-11-01T00:00:00Z');
