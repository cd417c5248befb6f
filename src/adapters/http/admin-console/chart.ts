import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

/**
 * A stacked bar chart drawn on the server as inline SVG: one bar per day, one colour per tenant.
 * No script, no external asset (the console's CSP allows neither); presentation attributes only
 * (an inline `style` would need 'unsafe-inline'). The numbers are also in a table beside it, for
 * screen readers and for reading exact values.
 */

/** Colour-blind-friendly (Okabe–Ito), in order of the tenants. */
export const SERIES_COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'];

export interface StackedSeries {
  name: string;
  /** Value per day (YYYY-MM-DD); missing days are 0. */
  values: Map<string, number>;
}

const W = 720;
const H = 220;
const PAD = { left: 64, right: 12, top: 12, bottom: 28 };

export function stackedBarChart(opts: {
  title: string;
  days: string[];
  series: StackedSeries[];
  format: (n: number) => string;
}): HtmlEscapedString | Promise<HtmlEscapedString> {
  const { days, series, format } = opts;
  const totals = days.map((d) => series.reduce((sum, s) => sum + (s.values.get(d) ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const step = plotW / Math.max(1, days.length);
  const barW = Math.max(1, step * 0.7);
  const y = (v: number) => PAD.top + plotH - (max > 0 ? (v / max) * plotH : 0);
  const bars = days.flatMap((day, i) => {
    let base = 0;
    return series.map((s, k) => {
      const v = s.values.get(day) ?? 0;
      if (v <= 0) return html``;
      const top = y(base + v);
      const bottom = y(base);
      base += v;
      return html`<rect
        x="${(PAD.left + i * step + (step - barW) / 2).toFixed(1)}"
        y="${top.toFixed(1)}"
        width="${barW.toFixed(1)}"
        height="${Math.max(0.5, bottom - top).toFixed(1)}"
        fill="${SERIES_COLOURS[k % SERIES_COLOURS.length]}"
        ><title>${day} ${s.name}: ${format(v)}</title></rect
      >`;
    });
  });
  const ticks = [0, 0.5, 1].map((f) => {
    const v = max * f;
    return html`<line
        x1="${PAD.left}"
        x2="${W - PAD.right}"
        y1="${y(v).toFixed(1)}"
        y2="${y(v).toFixed(1)}"
        stroke="#ccc"
        stroke-width="1"
      ></line
      ><text x="${PAD.left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" font-size="12" fill="#444"
        >${format(v)}</text
      >`;
  });
  // A date label under the first, middle and last day (more would collide on 30 days).
  const labelled = [...new Set([0, Math.floor((days.length - 1) / 2), days.length - 1])].filter((i) => i >= 0);
  const labels = labelled.map(
    (i) =>
      html`<text
        x="${(PAD.left + i * step + step / 2).toFixed(1)}"
        y="${H - 8}"
        text-anchor="middle"
        font-size="12"
        fill="#444"
        >${days[i]!.slice(5)}</text
      >`,
  );
  return html`<svg
    class="chart"
    viewBox="0 0 ${W} ${H}"
    role="img"
    aria-label="${opts.title}"
    xmlns="http://www.w3.org/2000/svg"
    data-chart="${opts.title}"
  >
    <title>${opts.title}</title>
    ${ticks}${bars}${labels}
  </svg>`;
}

/** The chart's legend: a swatch and a name per tenant. */
export function legend(names: string[]): HtmlEscapedString | Promise<HtmlEscapedString> {
  return html`<ul class="legend">
    ${names.map(
      (n, k) =>
        html`<li>
          <svg width="12" height="12" aria-hidden="true">
            <rect width="12" height="12" fill="${SERIES_COLOURS[k % SERIES_COLOURS.length]}"></rect>
          </svg>
          ${n}
        </li>`,
    )}
  </ul>`;
}

/** 1, 2 or 5 times a power of ten, at least `v` (a readable axis top). */
function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}
