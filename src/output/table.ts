import type { Context } from '../context.js';

/**
 * Prints rows for people on a terminal (a cli-table3 table with a header) and for programs in a
 * pipe (tab-separated lines, no header, as `gh` does).
 */
export async function printTable(ctx: Context, head: string[], rows: string[][]): Promise<void> {
  if (!ctx.stdoutIsTTY) {
    for (const row of rows)
      ctx.streams.stdout.write(`${row.map((cell) => cell.replace(/[\t\n]/g, ' ')).join('\t')}\n`);
    return;
  }
  const { default: Table } = await import('cli-table3');
  const table = new Table({ head, style: ctx.settings.color ? {} : { head: [], border: [] } });
  for (const row of rows) table.push(row);
  ctx.streams.stdout.write(`${table.toString()}\n`);
}

/** `--json` output: one document on stdout. */
export function printJson(ctx: Context, value: unknown): void {
  ctx.streams.stdout.write(`${escapeJsonControls(JSON.stringify(value, null, 2))}\n`);
}

/** One JSON object per line, for streams of outcomes that scripts read line by line. */
export function printJsonLine(ctx: Context, value: unknown): void {
  ctx.streams.stdout.write(`${escapeJsonControls(JSON.stringify(value))}\n`);
}

/** JSON.stringify escapes C0 but leaves DEL and C1 (a CSI is U+009B) raw; `\u009b` is the same JSON. */
export function escapeJsonControls(json: string): string {
  return json.replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
