import type { IOStreams } from './iostreams.js';
import { displayText, escapeControls, SHOWN_ESCAPED_PAST_C0 } from './sanitize.js';

type TableStreams = Pick<IOStreams, 'stdout' | 'stdoutIsTTY' | 'color'>;

/**
 * Prints rows for people on a terminal (a cli-table3 table with a header) and for programs in a
 * pipe (tab-separated lines, no header, as `gh` does). Cells are data from the service or from file
 * names: control characters are shown escaped in both.
 */
export async function printTable(io: TableStreams, head: string[], rows: string[][]): Promise<void> {
  if (!io.stdoutIsTTY) {
    for (const row of rows) io.stdout.write(`${row.map(displayText).join('\t')}\n`);
    return;
  }
  const { default: Table } = await import('cli-table3');
  // cli-table3 draws headers in red by default, which reads as an error: bold instead.
  const style = io.color ? { head: ['bold'], border: ['grey'] } : { head: [], border: [] };
  const table = new Table({ head, style });
  // One push per row: a spread of 200,000 rows overflows the call stack.
  for (const row of rows) table.push(row.map(escapeControls));
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
