import { columnPieces, columnsOf } from './fit.js';
import type { Narrowable } from './table-layout.js';

/** Spaces before a row's other cells, under its first. */
const INDENT = 2;
/** Spaces between a cell's header and its text. */
const GAP = 2;
/** The fewest columns beside the headers worth breaking text into; fewer, and it goes under them. */
const MIN_BESIDE = 16;

/**
 * `text` in lines of at most `columns` terminal columns: between words when each word fits (a date
 * and its time), else anywhere but inside a character (a file name is one long word).
 */
function textLines(text: string, columns: number, words: boolean): string[] {
  const split = text.split(' ');
  if (!words || split.some((word) => columnsOf(word) > columns)) return columnPieces(text, columns);
  const lines: string[] = [];
  for (const word of split) {
    const last = lines.at(-1);
    if (last !== undefined && columnsOf(`${last} ${word}`) <= columns)
      lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines;
}

/**
 * Rows for a terminal too narrow for them side by side, even as plain columns: the first cell (an
 * id, which never gives way) alone on a line, each other cell under it on lines of its own after its
 * header, its text broken to fit. Side by side, the terminal wrapped every line and each row came out
 * in pieces across the next lines, a time split inside its numbers (`20` / `26-11-29`).
 * The cells must already be escaped (see sanitize.ts).
 */
export function* stackedLines(
  head: readonly string[],
  rows: Iterable<readonly string[]>,
  width: number,
  narrowable: readonly Narrowable[] = [],
): Iterable<string> {
  const labelColumns = Math.max(0, ...head.slice(1).map(columnsOf));
  // Beside its header where the text has room, else on lines of its own under the header.
  const beside = width - INDENT - labelColumns - GAP >= MIN_BESIDE;
  const textIndent = beside ? INDENT + labelColumns + GAP : 2 * INDENT;
  const room = Math.max(1, width - textIndent);
  const byWords = new Set(narrowable.filter(({ words }) => words === true).map(({ column }) => column));
  const under = ' '.repeat(textIndent);
  for (const row of rows) {
    let block = `${row[0] ?? ''}\n`;
    for (let i = 1; i < head.length; i++) {
      const label = `${' '.repeat(INDENT)}${head[i] ?? ''}`;
      const lines = textLines(row[i] ?? '', room, byWords.has(i));
      if (beside) {
        const first = lines.shift() ?? '';
        block += `${`${label}${' '.repeat(textIndent - columnsOf(label))}${first}`.trimEnd()}\n`;
      } else block += `${label}\n`;
      for (const line of lines) block += `${under}${line}\n`;
    }
    yield block;
  }
}
