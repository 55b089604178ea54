/** The `--files-from` list: a file, or standard input with `-`. */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { UsageError } from '../errors.js';
import { describeFsError } from '../fs/errors.js';

/** Reads --files-from: one path per line; blank lines and lines starting with `#` are ignored; ends trimmed. */
export function parseListText(textContent: string): string[] {
  return textContent
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** Reads the --files-from list: a file (relative to cwd) or `-` for standard input. */
export async function readFilesFrom(source: string, cwd: string, stdin: Readable): Promise<string[]> {
  if (source === '-') return parseListText(await text(stdin));
  try {
    return parseListText(await readFile(resolve(cwd, source), 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read the --files-from list ${source}: ${describeFsError(error)}`);
  }
}
