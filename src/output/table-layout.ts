import { columnsOf } from './fit.js';

/**
 * A column that may give way when rows are wider than the terminal: its text is wrapped (or, in a
 * list too long for a drawn table, cut) down to no fewer than `min` columns. Columns not named never
 * give way: an identifier is copied by the user, whole.
 */
export interface Narrowable {
  column: number;
  min: number;
  /** Wrapped between words where each fits (a date and its time), not anywhere as a file name is. */
  words?: boolean;
}

/**
 * How rows are laid out on a terminal: `boxed` is cli-table3's frame (a border and a space either
 * side of each cell), `plain` is columns two spaces apart, no frame, for a terminal too narrow for
 * the frame. `widths` are each column's text width in terminal columns.
 */
export type Frame = 'boxed' | 'plain';

export interface TableLayout {
  frame: Frame;
  widths: number[];
  /** Whether every line fits the width (false: the fixed columns alone are wider). */
  fits: boolean;
}

/** Columns the layout itself takes beside the text of `count` columns. */
export function frameColumns(frame: Frame, count: number): number {
  return frame === 'boxed' ? 3 * count + 1 : 2 * (count - 1);
}

/** Each column's widest text, header included, in terminal columns. */
export function naturalWidths(head: readonly string[], rows: readonly (readonly string[])[]): number[] {
  const widths = head.map(columnsOf);
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, columnsOf(cell))));
  return widths;
}

/**
 * The widths that bring the text within `room` columns, narrowing the columns that may give way in
 * the order given (a file name before a time), each to no fewer than its `min` or its header; or,
 * when even that is too wide, each at that least width and `fits` false.
 */
function narrowed(
  natural: readonly number[],
  head: readonly string[],
  narrowable: readonly Narrowable[],
  room: number,
): { widths: number[]; fits: boolean } {
  const widths = [...natural];
  let excess = widths.reduce((sum, width) => sum + width, 0) - room;
  for (const { column, min } of narrowable) {
    if (excess <= 0) break;
    const least = Math.min(widths[column] ?? 0, Math.max(min, columnsOf(head[column] ?? '')));
    const given = Math.min(excess, (widths[column] ?? 0) - least);
    widths[column] = (widths[column] ?? 0) - given;
    excess -= given;
  }
  return { widths, fits: excess <= 0 };
}

/**
 * The layout of rows on a terminal `width` columns wide (undefined: not known, natural widths): the
 * first of `frames` that fits, narrowing what may give way (the frame, else plain columns, which
 * spare the frame's columns); else the last at its least widths, wider than the terminal.
 */
export function tableLayout(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  narrowable: readonly Narrowable[],
  width: number | undefined,
  frames: readonly Frame[] = ['boxed', 'plain'],
): TableLayout {
  const natural = naturalWidths(head, rows);
  let layout: TableLayout = { frame: frames[0] ?? 'boxed', widths: natural, fits: true };
  if (width === undefined) return layout;
  for (const frame of frames) {
    layout = { frame, ...narrowed(natural, head, narrowable, width - frameColumns(frame, head.length)) };
    if (layout.fits) break;
  }
  return layout;
}
