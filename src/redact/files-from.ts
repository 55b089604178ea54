/** The `--files-from` list: a file, or standard input with `-`. */
import { close, constants, fstat, open } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Socket } from 'node:net';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { promisify } from 'node:util';
import { UsageError } from '../errors.js';
import { describeFsError } from '../fs/errors.js';

const openAsync = promisify(open);
const fstatAsync = promisify(fstat);
const closeAsync = promisify(close);

/**
 * Splits a --files-from list into its paths as written: by lines (a `\r` before the `\n` and a
 * byte-order mark at the start are not part of a path), or, `nullSeparated`, between NUL bytes
 * (`find -print0`), where a line break is part of a name. Empty entries are left out: no file has an
 * empty name. Blank lines, comments and spaces around a path are told apart later (see listedFallback):
 * a name may start with `#` or a space, and such a file was dropped in silence or not found.
 */
export function parseListText(textContent: string, nullSeparated = false): string[] {
  const entries = nullSeparated ? textContent.split('\0') : textContent.replace(/^\uFEFF/, '').split(/\r?\n/);
  return entries.filter((entry) => entry !== '');
}

/**
 * What a line of a newline-separated list stands for when nothing is found under its name as written:
 * the path without the spaces around it, or undefined for a blank line or a `#` comment.
 */
export function listedFallback(line: string): string | undefined {
  const trimmed = line.trim();
  return trimmed === '' || trimmed.startsWith('#') ? undefined : trimmed;
}

/**
 * Reads the --files-from list: a file (relative to cwd) or `-` for standard input. `stop` lets go of
 * a named pipe's list whose writer has not closed it (see readNamed).
 */
export async function readFilesFrom(
  source: string,
  cwd: string,
  stdin: Readable,
  nullSeparated = false,
  stop?: AbortSignal,
): Promise<string[]> {
  if (source === '-') return parseListText(await text(stdin), nullSeparated);
  try {
    return parseListText(await readNamed(resolve(cwd, source), stop), nullSeparated);
  } catch (error) {
    if (stop?.aborted) throw error;
    throw new UsageError(
      `cannot read the --files-from list ${source}: ${describeFsError(error)}`,
      'give --files-from a file of paths, one per line, or - to read them from standard input',
    );
  }
}

/**
 * The text of the list at `path`. A named pipe (`--files-from <(find …)`, `mkfifo`) is read as
 * standard input is, through the event loop, and let go at `stop`: a file read waits in Node.js's
 * threads, which cannot take it back, so a run interrupted while the pipe's writer held it open
 * never exited. Opened without waiting for a writer, it is read once one comes.
 */
async function readNamed(path: string, stop: AbortSignal | undefined): Promise<string> {
  const fd = await openAsync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  let pipe: Socket | undefined;
  try {
    if (!(await fstatAsync(fd)).isFIFO()) return await readFile(path, 'utf8');
    // An interrupt that came while the pipe was opened fires no abort event again: a socket made
    // now would wait for its writer for good and keep the process (seen on a loaded machine).
    stop?.throwIfAborted();
    pipe = new Socket({ fd, readable: true, writable: false });
    const destroy = () => pipe?.destroy();
    stop?.addEventListener('abort', destroy, { once: true });
    try {
      return await text(pipe);
    } finally {
      stop?.removeEventListener('abort', destroy);
    }
  } finally {
    // The socket closes the descriptor it took.
    if (pipe) pipe.destroy();
    else await closeAsync(fd).catch(() => {});
  }
}
