import type { PriceResult } from './schemas.js';
import type { CheckedCalcItem } from './state.js';

/** Catalogue prices are AUD ex GST (see src/data/demo/products.ts). */
const currency = new Intl.NumberFormat('en-AU', { style: 'currency', currency: 'AUD' });
const plain = new Intl.NumberFormat('en-AU', { maximumFractionDigits: 3 });
/** Shop drawings write 1200 × 2400, not 1,200 × 2,400. */
const dimension = new Intl.NumberFormat('en-AU', { maximumFractionDigits: 2, useGrouping: false });

export const money = (n: number): string => currency.format(n);
export const num = (n: number): string => plain.format(n);
export const mm = (n: number): string => dimension.format(n);

/** Rounds to cents without binary drift (1.005 → 1.01). */
export function cents(n: number): number {
  return Math.round((n + Number.EPSILON * Math.sign(n)) * 100) / 100;
}

export function round3(n: number): number {
  return Math.round((n + Number.EPSILON * Math.sign(n)) * 1000) / 1000;
}

/** "304 stainless sheet, 0.9 mm" */
export function describeMaterial(n: NonNullable<PriceResult['normalized']>): string {
  const family = n.family.replaceAll('_', ' ');
  const size = n.sheet_size_mm ? `, ${n.sheet_size_mm.map(mm).join(' × ')} mm` : '';
  return `${[n.grade, family, n.form].filter(Boolean).join(' ')}, ${mm(n.thickness_mm)} mm${size}`;
}

/** "304 stainless steel, 0.8 mm sheet" from an item's specs (empty when none given). */
export function describeSpecs(item: CheckedCalcItem): string {
  const s = item.specs;
  if (!s) return '';
  const what = [s.grade, s.material].filter(Boolean).join(' ');
  const gauge = [s.thickness_mm !== undefined ? `${mm(s.thickness_mm)} mm` : '', s.form ?? '']
    .filter(Boolean)
    .join(' ');
  return [what, gauge].filter(Boolean).join(', ');
}

export function describeSize(item: CheckedCalcItem): string {
  const s = item.specs;
  return s?.width_mm !== undefined && s.length_mm !== undefined ? `${mm(s.width_mm)} × ${mm(s.length_mm)}` : '';
}

/** "12 pieces", "3 sheets", "2.5 m", "1 each": words get a plural, abbreviations do not. */
export function quantity(n: number, unit: string): string {
  const u = unit.trim();
  const word = /^[a-z]{3,}$/i.test(u) && !/(s|each)$/i.test(u);
  return `${num(n)} ${word && n !== 1 ? `${u}s` : u}`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${num(n)} ${n === 1 ? one : many}`;
}

export function shorten(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`;
}
