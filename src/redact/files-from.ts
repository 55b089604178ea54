/** The `--files-from` list: a file, or standard input with `-`. */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { UsageError } from '../errors.js';
import { describeFsError } from '../fs/errors.js';

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

/** Reads the --files-from list: a file (relative to cwd) or `-` for standard input. */
export async function readFilesFrom(
  source: string,
  cwd: string,
  stdin: Readable,
  nullSeparated = false,
): Promise<string[]> {
  if (source === '-') return parseListText(await text(stdin), nullSeparated);
  try {
    return parseListText(await readFile(resolve(cwd, source), 'utf8'), nullSeparated);
  } catch (error) {
    throw new UsageError(
      `cannot read the --files-from list ${source}: ${describeFsError(error)}`,
      'give --files-from a file of paths, one per line, or - to read them from standard input',
    );
  }
}
