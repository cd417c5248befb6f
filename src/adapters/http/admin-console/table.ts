import { html, raw } from 'hono/html';
import type { Html } from './layout.js';

/**
 * The console's one table: a header row from the columns, a row per item, and one row saying
 * so when there are none, inside the box that scrolls sideways on a phone. Every page's table
 * is this one, so they read (and are read out by a screen reader) alike: column headers
 * `scope="col"`, the cell that names a row `scope="row"`, figures right-aligned. Cells are
 * escaped by hono/html like everything else on the pages.
 */

/** What a cell may hold: text (escaped), a number, markup, or nothing. */
export type Content = Html | string | number | false | null | undefined | readonly Content[];

export interface Column<Row> {
  /** The header's text. */
  label: string;
  /** A figure: right-aligned, header and cells. */
  num?: boolean;
  /** The cell that names the row (`<th scope="row">`), read out before each of its cells. */
  rowHeader?: boolean;
  cell: (row: Row) => Content;
  /** A class for this row's cell besides `num` (e.g. `ok` or `bad`). */
  cellClass?: (row: Row) => string;
}

export interface TableOptions<Row> {
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  /** The one row shown when there are no rows (spanning every column); none: an empty body. */
  empty?: string;
  /** The table's class (styles in layout.ts). */
  className?: string;
  /** An attribute naming each row for tests and links, e.g. `data-turn` with the turn's id. */
  rowKey?: { attribute: `data-${string}`; of: (row: Row) => string | number };
}

export function table<Row>(opts: TableOptions<Row>): Html {
  const { columns, rows } = opts;
  const classes = (...names: (string | false | undefined)[]) => {
    const list = names.filter(Boolean).join(' ');
    return list ? html` class="${list}"` : '';
  };
  // The attribute's name is a literal of our code (typed `data-…`), never text from a request.
  const key = opts.rowKey;
  const keyOf = (row: Row) => (key ? html` ${raw(key.attribute)}="${key.of(row)}"` : '');
  const cell = (column: Column<Row>, row: Row) =>
    column.rowHeader
      ? html`<th scope="row" ${classes(column.num && 'num', column.cellClass?.(row))}>${column.cell(row)}</th>`
      : html`<td${classes(column.num && 'num', column.cellClass?.(row))}>${column.cell(row)}</td>`;
  const body =
    rows.length === 0 && opts.empty !== undefined
      ? html`<tr>
          <td colspan="${columns.length}" class="muted">${opts.empty}</td>
        </tr>`
      : rows.map((row) => html`<tr${keyOf(row)}>${columns.map((column) => cell(column, row))}</tr>`);
  return html`<div class="table-wrap">
    <table${classes(opts.className)}>
      <thead>
        <tr>
          ${columns.map((column) => html`<th scope="col" ${classes(column.num && 'num')}>${column.label}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${body}
      </tbody>
    </table>
  </div>`;
}
