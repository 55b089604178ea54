import type { Writable } from 'node:stream';
import { columnsOf } from '../../output/fit.js';

/** Bytes gathered before one write: few write calls, and never the whole output in memory at once. */
const BATCH_CHARS = 64 * 1024;

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
 * Writes `lines` (each with its own newline) in batches, waiting whenever the stream's buffer is full:
 * 200,000 rows into a slow pipe do not pile up in memory. A stream that closes (a reader gone) ends
 * the writing quietly; saying so is the terminal layer's job.
 */
export async function writeLines(stream: Writable, lines: Iterable<string>): Promise<void> {
  let batch = '';
  const gone = () => stream.destroyed || stream.writableEnded || stream.errored !== null;
  const flush = async () => {
    if (batch === '' || gone()) return;
    const full = !stream.write(batch);
    batch = '';
    if (full && !gone()) await writable(stream);
  };
  for (const line of lines) {
    if (gone()) return;
    batch += line;
    if (batch.length >= BATCH_CHARS) await flush();
  }
  await flush();
}

/**
 * Rows as columns padded to their widest cell, under a header: what a terminal gets when a list is too
 * long for a drawn table (cli-table3 builds the whole table in memory and fails on 200,000 rows).
 * Widths are terminal columns, not characters: a CJK character or an emoji takes two.
 */
export function* alignedLines(
  head: readonly string[],
  rows: readonly (readonly string[])[],
): Iterable<string> {
  const widths = head.map(columnsOf);
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, columnsOf(cell))));
  const pad = (cell: string, width: number) => cell + ' '.repeat(Math.max(0, width - columnsOf(cell)));
  const line = (cells: readonly string[]) =>
    `${cells
      .map((cell, i) => (i === cells.length - 1 ? cell : pad(cell, widths[i] ?? 0)))
      .join('  ')
      .trimEnd()}\n`;
  yield line(head);
  for (const row of rows) yield line(row);
}
