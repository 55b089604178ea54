/**
 * Whether a folder's file system takes `A.wav` and `a.wav` for one name: macOS and Windows by
 * default, but on Linux too a vfat or exFAT drive, an SMB share or an ext4 casefold folder. There two
 * inputs that differ only in case have one output, and the second rename replaces the first while
 * the journal records both done.
 *
 * Asked of a name in the folder, its letters' case swapped: the same file under both spellings means
 * the folder ignores case. Exactly, of a file vredact has just made there itself (the write check's,
 * see writable.ts), which a real run does before it plans its outputs; without writing (a dry run may
 * not write), of a name already there. A folder that does not exist yet is asked of its nearest
 * existing parent, where it will be made; one with no name to swap (empty) answers undefined.
 */
import { lstat, opendir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { errnoCode } from './errors.js';

/** The case systems default to, where a folder cannot be asked. */
const PLATFORM_IGNORES_CASE = process.platform === 'darwin' || process.platform === 'win32';

/** A folder's answer, or where it could not be told (undefined), its system's default. */
export function caseIgnored(answer: boolean | undefined): boolean {
  return answer ?? PLATFORM_IGNORES_CASE;
}

/** How many names of a folder are looked at for one with a letter whose case can be swapped. */
const NAMES_LOOKED_AT = 64;

/** How a name is looked up (`lstat`; tests play a file system that ignores case, none here does). */
export type CaseLookup = (path: string) => Promise<{ dev: number; ino: number }>;

/** How names are compared where letter case is ignored: the one rule for every such comparison. */
export function foldLetterCase(name: string): string {
  return name.toLowerCase();
}

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
 * Whether the file at `path` is found under its name with its letters' case swapped too: whether its
 * folder ignores letter case. Undefined when the name has no letter, or the lookup fails otherwise.
 */
export async function foundInOtherCase(
  path: string,
  lookUp: CaseLookup = lstat,
): Promise<boolean | undefined> {
  const name = basename(path);
  const swapped = swapCase(name);
  if (swapped === name) return undefined;
  try {
    const [own, other] = await Promise.all([lookUp(path), lookUp(join(dirname(path), swapped))]);
    return own.dev === other.dev && own.ino === other.ino;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false;
    return undefined;
  }
}

/**
 * True when `dir`'s file system ignores letter case, false when it does not, undefined when it cannot
 * be told without writing.
 */
export async function ignoresLetterCase(
  dir: string,
  lookUp: CaseLookup = lstat,
): Promise<boolean | undefined> {
  const folder = await existingFolder(dir);
  if (folder === undefined) return undefined;
  const name = await swappableName(folder);
  return name === undefined ? undefined : foundInOtherCase(join(folder, name), lookUp);
}
