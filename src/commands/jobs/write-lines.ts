import type { Writable } from 'node:stream';
import { columnsOf, fitMiddle } from '../../output/fit.js';
import { terminalColumns, type IOStreams } from '../../output/iostreams.js';
import { stackedLines } from '../../output/stacked-rows.js';
import { type Narrowable, tableLayout } from '../../output/table-layout.js';
import { escapeJsonControls, printTable } from '../../output/table.js';

/** Beyond this many rows a terminal gets aligned columns rather than a drawn table. */
const MAX_DRAWN_ROWS = 2000;

/** Bytes gathered before one write: few write calls, and never the whole output in memory at once. */
const BATCH_CHARS = 64 * 1024;

/**
 * One element of a JSON array printed as it comes: the same text as JSON.stringify(all, null, 2), each
 * element after the separator it needs (whether an element is the last is not known when it comes).
 */
export function jsonArrayElement(value: unknown, index: number): string {
  const item = escapeJsonControls(JSON.stringify(value, null, 2).replace(/\n/g, '\n  '));
  return `${index === 0 ? '[\n' : ',\n'}  ${item}`;
}

/** What closes an array of `count` elements printed by jsonArrayElement. */
export function jsonArrayEnd(count: number): string {
  return count === 0 ? '[]\n' : '\n]\n';
}

/** `values` as one JSON array, each as `shown` gives it when its turn comes (no copy of them all). */
export function* jsonArrayLines<T>(
  values: readonly T[],
  shown: (value: T) => unknown = (value) => value,
): Iterable<string> {
  for (let i = 0; i < values.length; i++) yield jsonArrayElement(shown(values[i] as T), i);
  yield jsonArrayEnd(values.length);
}

/** Resolves when the stream can take more, or will never take more (closed, failed: `| head`). */
function writable(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done).off('close', done).off('error', done);
      resolve();
    };
    stream.on('drain', done).on('close', done).on('error', done);
  });
}

/**
 * Lines gathered into batches for a stream: few write calls, and a full stream's buffer is waited on
 * (`flush`), so 200,000 rows into a slow pipe do not pile up in memory. A stream that closes (a reader
 * gone) takes nothing more, quietly; saying so is the terminal layer's job.
 */
export class LineBatches {
  readonly #stream: Writable;
  #batch = '';

  constructor(stream: Writable) {
    this.#stream = stream;
  }

  get gone(): boolean {
    const stream = this.#stream;
    return stream.destroyed || stream.writableEnded || stream.errored !== null;
  }

  /** Whether lines are waiting for the next flush. */
  get pending(): boolean {
    return this.#batch !== '';
  }

  /** Adds `line` (with its own newline); returns true when the batch is big enough to flush. */
  push(line: string): boolean {
    if (!this.gone) this.#batch += line;
    return this.#batch.length >= BATCH_CHARS;
  }

  async flush(): Promise<void> {
    if (this.#batch === '' || this.gone) return;
    const full = !this.#stream.write(this.#batch);
    this.#batch = '';
    if (full && !this.gone) await writable(this.#stream);
  }
}

/** Writes `lines` (each with its own newline) in batches (LineBatches). */
export async function writeLines(stream: Writable, lines: Iterable<string>): Promise<void> {
  const out = new LineBatches(stream);
  for (const line of lines) {
    if (out.gone) return;
    if (out.push(line)) await out.flush();
  }
  await out.flush();
}

/**
 * Rows as columns padded to their widest cell, under a header: what a terminal gets when a list is too
 * long for a drawn table (cli-table3 builds the whole table in memory and fails on 200,000 rows).
 * Widths are terminal columns, not characters: a CJK character or an emoji takes two. On a terminal
 * `width` columns wide, the `narrowable` columns are cut in their middle with `…` to fit, as gh cuts
 * a long list's titles: one line a row keeps a long list one to scan, and the whole names are in the
 * pipe's lines and in `--json`. A time (a column wrapped between words) is never cut: a time cut in
 * its middle reads as another time. A terminal too narrow even then gets each row as a block of
 * lines (see stacked-rows.ts).
 */
export function* alignedLines(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  width?: number,
  narrowable: readonly Narrowable[] = [],
): Iterable<string> {
  const cuttable = narrowable.filter(({ words }) => words !== true);
  const { widths, fits } = tableLayout(head, rows, cuttable, width, ['plain']);
  if (width !== undefined && !fits) {
    yield* stackedLines(head, rows, width, narrowable);
    return;
  }
  const cut = new Set(cuttable.map(({ column }) => column));
  const pad = (cell: string, width: number) => cell + ' '.repeat(Math.max(0, width - columnsOf(cell)));
  const line = (cells: readonly string[]) =>
    `${cells
      .map((cell, i) => (cut.has(i) ? fitMiddle(cell, widths[i] ?? 0) : cell))
      .map((cell, i) => (i === cells.length - 1 ? cell : pad(cell, widths[i] ?? 0)))
      .join('  ')
      .trimEnd()}\n`;
  yield line(head);
  for (const row of rows) yield line(row);
}

/**
 * Rows on a terminal: a drawn table, or aligned columns for a list too long for one, either fitting
 * the terminal's width by narrowing the `narrowable` columns. No rows, no table: the caller's line on
 * stderr says the list is empty, as gh's does (a frame and its headings under "No jobs." looked like
 * a list that had failed to load).
 */
export async function printRows(
  io: Pick<IOStreams, 'stdout' | 'stdoutIsTTY' | 'color'>,
  head: string[],
  rows: string[][],
  narrowable: readonly Narrowable[] = [],
): Promise<void> {
  if (rows.length === 0) return;
  if (rows.length > MAX_DRAWN_ROWS) {
    const width = terminalColumns(io.stdout) || undefined;
    await writeLines(io.stdout, alignedLines(head, rows, width, narrowable));
  } else await printTable(io, head, rows, narrowable);
}
