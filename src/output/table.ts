import type CliTable3 from 'cli-table3';
import { columnPieces, tableWrapLoses } from './fit.js';
import { terminalColumns, type IOStreams } from './iostreams.js';
import { displayText, escapeControls, SHOWN_ESCAPED_PAST_C0 } from './sanitize.js';
import { stackedLines } from './stacked-rows.js';
import { type Narrowable, type TableLayout, tableLayout } from './table-layout.js';

type TableStreams = Pick<IOStreams, 'stdout' | 'stdoutIsTTY' | 'color'>;

/** No frame at all, columns two spaces apart: cli-table3's README's compact layout. */
const PLAIN_CHARS: Partial<Record<CliTable3.CharName, string>> = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
};

/**
 * The table's options for a layout. `compact` draws no rule between rows but keeps the one under
 * the header (empty `mid` characters, as cli-table3's README shows, drop that one too). A column
 * that gives way gets its width and cli-table3 wraps its text anywhere, not only between words: a
 * file name is one long word.
 */
function tableOptions(
  layout: TableLayout | undefined,
  narrowable: readonly Narrowable[],
  headStyle: string[],
  borderStyle: string[],
): CliTable3.TableConstructorOptions {
  const plain = layout?.frame === 'plain';
  const padding = plain ? 0 : 1;
  const colWidths: Array<number | null> = (layout?.widths ?? []).map(() => null);
  if (layout)
    for (const { column } of narrowable) colWidths[column] = (layout.widths[column] ?? 0) + 2 * padding;
  return {
    colWidths,
    wordWrap: true,
    wrapOnWordBoundary: false,
    ...(plain ? { chars: PLAIN_CHARS } : {}),
    style: {
      compact: true,
      head: headStyle,
      border: borderStyle,
      'padding-left': padding,
      'padding-right': padding,
    },
  };
}

/**
 * A cell of a column that gives way: text cli-table3 would wrap wrongly (wide characters, leading
 * spaces) is broken into lines of the column's width here, and cli-table3 only draws those.
 */
function cell(text: string, narrowed: { width: number; words: boolean } | undefined): CliTable3.Cell {
  if (narrowed === undefined) return text;
  const { width, words } = narrowed;
  if (tableWrapLoses(text)) return { content: columnPieces(text, width).join('\n'), wordWrap: false };
  // cli-table3 cuts a word longer than the width when it wraps between words.
  if (words && text.split(' ').every((word) => word.length <= width))
    return { content: text, wrapOnWordBoundary: true };
  return text;
}

/**
 * Prints rows for people on a terminal (a cli-table3 table with a header) and for programs in a
 * pipe (tab-separated lines, no header, as `gh` does). Cells are data from the service or from file
 * names: control characters are shown escaped in both. On a terminal of known width the table
 * fits it: the `narrowable` columns give way, their text wrapped inside the cell (see table-layout.ts);
 * where even that is too wide, each row is a block of lines (see stacked-rows.ts).
 */
export async function printTable(
  io: TableStreams,
  head: string[],
  rows: string[][],
  narrowable: readonly Narrowable[] = [],
): Promise<void> {
  if (!io.stdoutIsTTY) {
    for (const row of rows) io.stdout.write(`${row.map(displayText).join('\t')}\n`);
    return;
  }
  const shown = rows.map((row) => row.map(escapeControls));
  const width = terminalColumns(io.stdout) || undefined;
  const layout = width === undefined ? undefined : tableLayout(head, shown, narrowable, width);
  if (width !== undefined && layout?.fits === false) {
    io.stdout.write([...stackedLines(head, shown, width, narrowable)].join(''));
    return;
  }
  const { default: Table } = await import('cli-table3');
  // cli-table3 draws headers in red by default, which reads as an error: bold instead.
  const [headStyle, borderStyle] = io.color ? [['bold'], ['grey']] : [[], []];
  const table = new Table({ head, ...tableOptions(layout, narrowable, headStyle, borderStyle) });
  const narrowed = new Map(
    layout
      ? narrowable.map(({ column, words }) => [
          column,
          { width: layout.widths[column] ?? 0, words: words === true },
        ])
      : [],
  );
  // One push per row: a spread of 200,000 rows overflows the call stack.
  for (const row of shown) table.push(row.map((text, i) => cell(text, narrowed.get(i))));
  io.stdout.write(`${table.toString()}\n`);
}

/** `--json` output: one document on stdout. */
export function printJson(io: Pick<IOStreams, 'stdout'>, value: unknown): void {
  io.stdout.write(`${escapeJsonControls(JSON.stringify(value, null, 2))}\n`);
}

/** One JSON object per line, for streams of outcomes that scripts read line by line. */
export function printJsonLine(io: Pick<IOStreams, 'stdout'>, value: unknown): void {
  io.stdout.write(`${escapeJsonControls(JSON.stringify(value))}\n`);
}

const JSON_UNESCAPED = new RegExp(`[${SHOWN_ESCAPED_PAST_C0}]`, 'g');

/**
 * JSON.stringify escapes C0 but leaves DEL, C1 (a CSI is U+009B) and the bidirectional controls raw;
 * `\u009b` is the same JSON.
 */
export function escapeJsonControls(json: string): string {
  return json.replace(JSON_UNESCAPED, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
