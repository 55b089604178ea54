/**
 * Whether a folder's file system takes `A.wav` and `a.wav` for one name: macOS and Windows by
 * default, but on Linux too a vfat or exFAT drive, an SMB share or an ext4 casefold folder. There two
 * inputs that differ only in case have one output, and the second rename replaces the first while
 * the journal records both done.
 *
 * Asked without writing (a dry run may not write): a name already in the folder, its letters' case
 * swapped, is looked up. A folder that does not exist yet is asked of its nearest existing parent,
 * where it will be made; one with no name to swap (empty) answers undefined.
 */
import { lstat, opendir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { errnoCode } from './errors.js';

/** The case systems default to, where a folder cannot be asked. */
export const PLATFORM_IGNORES_CASE = process.platform === 'darwin' || process.platform === 'win32';

/** How many names of a folder are looked at for one with a letter whose case can be swapped. */
const NAMES_LOOKED_AT = 64;

type Lstat = (path: string) => Promise<{ dev: number; ino: number }>;

function swapCase(name: string): string {
  let swapped = '';
  for (const char of name) {
    const upper = char.toUpperCase();
    swapped += upper === char ? char.toLowerCase() : upper;
  }
  return swapped;
}

/** The folder itself, or the nearest parent that exists (where it will be made). */
async function existingFolder(dir: string): Promise<string | undefined> {
  for (let at = dir; ; at = dirname(at)) {
    try {
      if ((await lstat(at)).isDirectory()) return at;
      return undefined; // a file in the way: the run refuses the folder with its own reason
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT' || dirname(at) === at) return undefined;
    }
  }
}

/** A name in `dir` that its case-swapped spelling tells apart (one letter at least), if any. */
async function swappableName(dir: string): Promise<string | undefined> {
  const folder = await opendir(dir).catch(() => undefined);
  if (!folder) return undefined;
  let looked = 0;
  try {
    for await (const entry of folder) {
      if (swapCase(entry.name) !== entry.name) return entry.name;
      if (++looked >= NAMES_LOOKED_AT) return undefined;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/**
 * True when `dir`'s file system ignores letter case, false when it does not, undefined when it cannot
 * be told without writing. `stat` is for tests (no file system here ignores case).
 */
export async function ignoresLetterCase(dir: string, stat: Lstat = lstat): Promise<boolean | undefined> {
  const folder = await existingFolder(dir);
  if (folder === undefined) return undefined;
  const name = await swappableName(folder);
  if (name === undefined) return undefined;
  try {
    const [own, swapped] = await Promise.all([stat(join(folder, name)), stat(join(folder, swapCase(name)))]);
    return own.dev === swapped.dev && own.ino === swapped.ino;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false;
    return undefined;
  }
}
