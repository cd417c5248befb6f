import { createRng } from './prng.js';

/**
 * A sheet-metal catalogue for the quote tools: stainless 304/316, aluminium 5052 and
 * mild steel in sheets, plates, tubes, angles and bars, priced by four invented
 * suppliers (AUD, ex GST). Prices follow mass × a per-kg rate per material, with a
 * premium for thin gauges, so they move the way real price lists do.
 */

export interface ProductInput {
  code: string;
  family: 'stainless' | 'aluminium' | 'mild_steel';
  grade: string;
  form: 'sheet' | 'plate' | 'tube' | 'angle' | 'bar';
  finish?: string;
  thickness_mm: number;
  width_mm?: number;
  length_mm?: number;
  size_label: string;
  description: string;
  mass_kg: number;
}

export interface SupplierPriceInput {
  product_code: string;
  supplier: string;
  sku: string;
  uom: 'sheet' | 'm';
  price_per_uom: number;
  lead_time_days: number;
  delivery_cost: number;
  min_order_qty?: number;
  notes?: string;
}

interface Material {
  family: ProductInput['family'];
  grade: string;
  prefix: string;
  density: number; // kg/m³
  perKg: number; // AUD/kg before gauge premium
  label: string;
}

const SS304: Material = {
  family: 'stainless',
  grade: '304',
  prefix: 'SS304',
  density: 7930,
  perKg: 8.6,
  label: 'Stainless steel 304 (stainless)',
};
const SS316: Material = {
  family: 'stainless',
  grade: '316',
  prefix: 'SS316',
  density: 7980,
  perKg: 12.2,
  label: 'Stainless steel 316 marine grade (stainless)',
};
const AL5052: Material = {
  family: 'aluminium',
  grade: '5052',
  prefix: 'AL5052',
  density: 2680,
  perKg: 11.4,
  label: 'Aluminium 5052 H32 (aluminum)',
};
const MS_SHEET: Material = {
  family: 'mild_steel',
  grade: 'CA3SN',
  prefix: 'MS',
  density: 7850,
  perKg: 2.5,
  label: 'Mild steel cold rolled (CR)',
};
const MS_PLATE: Material = {
  family: 'mild_steel',
  grade: '250',
  prefix: 'MS250',
  density: 7850,
  perKg: 2.15,
  label: 'Mild steel hot rolled plate grade 250',
};
const MS_TUBE: Material = {
  family: 'mild_steel',
  grade: 'C350',
  prefix: 'MSC350',
  density: 7850,
  perKg: 2.8,
  label: 'Mild steel hollow section C350L0',
};
const MS_300: Material = {
  family: 'mild_steel',
  grade: '300',
  prefix: 'MS300',
  density: 7850,
  perKg: 2.6,
  label: 'Mild steel grade 300',
};

interface Supplier {
  name: string;
  code: string;
  factor: number;
  lead: [number, number];
  delivery: number;
  carries: (m: Material, form: ProductInput['form']) => boolean;
  note: string;
}

export const SUPPLIERS: Supplier[] = [
  {
    name: 'Southern Cross Metals',
    code: 'SCM',
    factor: 1.0,
    lead: [2, 3],
    delivery: 65,
    carries: () => true,
    note: 'Cut-to-size service available.',
  },
  {
    name: 'Bayside Steel & Alloy',
    code: 'BSA',
    factor: 0.94,
    lead: [5, 7],
    delivery: 95,
    carries: (m) => m.family !== 'aluminium',
    note: 'Mill certificates on request.',
  },
  {
    name: 'Ironbark Metal Supplies',
    code: 'IMS',
    factor: 1.07,
    lead: [1, 1],
    delivery: 45,
    carries: (m) => m.family === 'mild_steel' || m.grade === '304',
    note: 'Next-day metro delivery.',
  },
  {
    name: 'Coastline Aluminium',
    code: 'CLA',
    factor: 0.97,
    lead: [3, 4],
    delivery: 80,
    carries: (m, form) => m.family === 'aluminium' || (m.grade === '316' && form === 'sheet'),
    note: 'PE film one side.',
  },
];

const round = (n: number, dp: number) => Math.round(n * 10 ** dp) / 10 ** dp;
const num = (n: number) => String(round(n, 2));

function flat(m: Material, form: 'sheet' | 'plate', t: number, w: number, l: number, finish: string): ProductInput {
  const mass = round((t / 1000) * (w / 1000) * (l / 1000) * m.density, 3);
  return {
    code: `${m.prefix}-${finish.replace(/\W/g, '')}-${form.toUpperCase()}-${num(t)}-${w}X${l}`,
    family: m.family,
    grade: m.grade,
    form,
    finish,
    thickness_mm: t,
    width_mm: w,
    length_mm: l,
    size_label: `${l} x ${w} mm`,
    description: `${m.label} ${form}, ${finish} finish, ${num(t)} mm thick, ${l} x ${w} mm (${num(mass)} kg each)`,
    mass_kg: mass,
  };
}

/** Long products are priced per metre; mass_kg is per metre. */
function long(
  m: Material,
  form: 'tube' | 'angle' | 'bar',
  t: number,
  shape: string,
  kgPerM: number,
  finish: string,
): ProductInput {
  return {
    code: `${m.prefix}-${form.toUpperCase()}-${shape.replace(/\s+/g, '').toUpperCase()}`,
    family: m.family,
    grade: m.grade,
    form,
    finish,
    thickness_mm: t,
    size_label: `${shape}, 6 m lengths`,
    description: `${m.label} ${form}: ${shape}, ${finish}, sold per metre in 6 m lengths (${num(kgPerM)} kg/m)`,
    mass_kg: round(kgPerM, 3),
  };
}

const shs = (b: number, t: number, d: number) => (4 * (b - t) * t * d) / 1e6;
const rhs = (b: number, h: number, t: number, d: number) => (2 * (b + h - 2 * t) * t * d) / 1e6;
const chs = (od: number, t: number, d: number) => (Math.PI * (od - t) * t * d) / 1e6;
const angle = (b: number, t: number, d: number) => ((2 * b - t) * t * d) / 1e6;
const flatBar = (w: number, t: number, d: number) => (w * t * d) / 1e6;
const roundBar = (dia: number, d: number) => ((Math.PI / 4) * dia * dia * d) / 1e6;

function catalogue(): { product: ProductInput; material: Material }[] {
  const out: { product: ProductInput; material: Material }[] = [];
  const add = (material: Material, product: ProductInput) => out.push({ product, material });
  for (const t of [0.55, 0.9, 1.2, 1.5, 2, 3])
    for (const [w, l] of [
      [1200, 2400],
      [1500, 3000],
    ] as const)
      add(SS304, flat(SS304, 'sheet', t, w, l, '2B'));
  for (const t of [0.9, 1.2, 1.5]) add(SS304, flat(SS304, 'sheet', t, 1200, 2400, 'No.4 brushed'));
  for (const t of [4, 5, 6, 8, 10, 12]) add(SS304, flat(SS304, 'plate', t, 1500, 3000, 'No.1'));
  for (const t of [0.9, 1.2, 1.5, 2, 3]) add(SS316, flat(SS316, 'sheet', t, 1200, 2400, '2B'));
  for (const t of [5, 6, 8, 10]) add(SS316, flat(SS316, 'plate', t, 1500, 3000, 'No.1'));
  for (const t of [1, 1.6, 2, 2.5, 3])
    for (const [w, l] of [
      [1200, 2400],
      [1200, 3600],
    ] as const)
      add(AL5052, flat(AL5052, 'sheet', t, w, l, 'mill'));
  for (const t of [4, 5, 6, 8]) add(AL5052, flat(AL5052, 'plate', t, 1200, 2400, 'mill'));
  for (const t of [0.8, 1, 1.2, 1.6, 2, 3]) add(MS_SHEET, flat(MS_SHEET, 'sheet', t, 1200, 2400, 'oiled'));
  for (const t of [5, 6, 8, 10, 12, 16, 20]) add(MS_PLATE, flat(MS_PLATE, 'plate', t, 1200, 2400, 'black'));
  for (const [od, t] of [
    [25.4, 1.6],
    [38.1, 1.6],
    [50.8, 1.6],
  ] as const)
    add(
      SS304,
      long(SS304, 'tube', t, `${od} OD x ${t} wall round tube`, chs(od, t, SS304.density), 'polished 320 grit'),
    );
  for (const [b, t] of [
    [25, 2],
    [40, 2.5],
    [50, 3],
    [75, 3],
  ] as const)
    add(MS_TUBE, long(MS_TUBE, 'tube', t, `${b} x ${b} x ${t} SHS`, shs(b, t, MS_TUBE.density), 'black'));
  for (const [b, h, t] of [
    [75, 50, 2.5],
    [100, 50, 3],
  ] as const)
    add(MS_TUBE, long(MS_TUBE, 'tube', t, `${b} x ${h} x ${t} RHS`, rhs(b, h, t, MS_TUBE.density), 'black'));
  for (const [b, t] of [
    [25, 3],
    [40, 5],
    [50, 5],
    [65, 6],
    [75, 6],
  ] as const)
    add(MS_300, long(MS_300, 'angle', t, `${b} x ${b} x ${t} equal angle`, angle(b, t, MS_300.density), 'black'));
  for (const [b, t] of [
    [25, 3],
    [40, 4],
    [50, 5],
  ] as const)
    add(SS304, long(SS304, 'angle', t, `${b} x ${b} x ${t} equal angle`, angle(b, t, SS304.density), 'No.1'));
  for (const [w, t] of [
    [25, 5],
    [50, 6],
    [75, 10],
    [100, 10],
  ] as const)
    add(MS_300, long(MS_300, 'bar', t, `${w} x ${t} flat bar`, flatBar(w, t, MS_300.density), 'black'));
  for (const dia of [12, 16, 20, 25])
    add(MS_300, long(MS_300, 'bar', dia, `${dia} mm round bar`, roundBar(dia, MS_300.density), 'black'));
  for (const [w, t] of [
    [25, 3],
    [50, 6],
  ] as const)
    add(SS304, long(SS304, 'bar', t, `${w} x ${t} flat bar`, flatBar(w, t, SS304.density), 'No.1'));
  for (const dia of [20, 25])
    add(SS316, long(SS316, 'bar', dia, `${dia} mm round bar`, roundBar(dia, SS316.density), 'bright'));
  return out;
}

export function demoProducts(): { products: ProductInput[]; prices: SupplierPriceInput[] } {
  const rng = createRng(7);
  const products: ProductInput[] = [];
  const prices: SupplierPriceInput[] = [];
  for (const { product, material } of catalogue()) {
    products.push(product);
    // Thin gauges cost more per kg to roll and handle.
    const gauge = product.form === 'sheet' || product.form === 'plate' ? 1 + 0.25 / product.thickness_mm : 1.12;
    const base = product.mass_kg * material.perKg * gauge;
    for (const s of SUPPLIERS) {
      // Not every supplier stocks every line, even within what it carries.
      if (!s.carries(material, product.form) || rng.chance(0.12)) continue;
      const heavy = product.form === 'plate' && product.thickness_mm >= 10;
      prices.push({
        product_code: product.code,
        supplier: s.name,
        sku: `${s.code}-${product.code}`,
        uom: product.form === 'sheet' || product.form === 'plate' ? 'sheet' : 'm',
        price_per_uom: round(base * s.factor * (0.96 + rng.next() * 0.08), 2),
        lead_time_days: rng.int(s.lead[0], s.lead[1]) + (heavy ? 2 : 0),
        delivery_cost: s.delivery + (heavy ? 40 : 0),
        ...(product.form === 'tube' || product.form === 'angle' || product.form === 'bar' ? { min_order_qty: 6 } : {}),
        notes: heavy ? `${s.note} Crane truck delivery for heavy plate.` : s.note,
      });
    }
  }
  return { products, prices };
}
