/**
 * Reads the lines of a journal file as a stream of bytes, with a bound on each line: a line longer
 * than `maxLineBytes` is skipped (and counted) without ever being built as a string, so one damaged
 * 700 MB line costs no memory. The file is read once, from one open handle: a compaction that
 * renames a new journal over this one meanwhile does not change what is read.
 */
import type { FileHandle } from 'node:fs/promises';

/** Longest journal line read, in bytes; a real line is well under 4 KiB. */
export const MAX_LINE_BYTES = 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;

export interface LineScan {
  /** Lines over the bound, skipped unread. */
  oversized: number;
}

/** Yields each non-empty line (without its newline) as UTF-8 text; `scan.oversized` counts the skipped ones. */
export async function* readLines(
  handle: FileHandle,
  scan: LineScan,
  maxLineBytes = MAX_LINE_BYTES,
): AsyncGenerator<string> {
  const buffer = Buffer.alloc(CHUNK_BYTES);
  // The start of a line begun in earlier chunks (copied: the read buffer is reused).
  let carried: Buffer[] = [];
  let carriedBytes = 0;
  let skipping = false;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
    if (bytesRead === 0) break;
    let start = 0;
    while (start < bytesRead) {
      const found = buffer.indexOf(0x0a, start);
      const end = found === -1 || found >= bytesRead ? bytesRead : found;
      if (!skipping && carriedBytes + (end - start) > maxLineBytes) {
        skipping = true;
        carried = [];
        carriedBytes = 0;
      }
      if (end === bytesRead) {
        // The line goes on in the next chunk.
        if (!skipping && end > start) {
          carried.push(Buffer.from(buffer.subarray(start, end)));
          carriedBytes += end - start;
        }
        break;
      }
      if (skipping) scan.oversized++;
      else if (carriedBytes === 0) {
        if (end > start) yield buffer.toString('utf8', start, end);
      } else {
        carried.push(buffer.subarray(start, end));
        yield Buffer.concat(carried).toString('utf8');
      }
      skipping = false;
      carried = [];
      carriedBytes = 0;
      start = end + 1;
    }
  }
  // The last line may lack its newline (a run still writing it, or a torn line from a crash).
  if (skipping) scan.oversized++;
  else if (carriedBytes > 0) yield Buffer.concat(carried).toString('utf8');
}
