/**
 * `mkdir -p` that always ends. Node.js's recursive mkdir loops for ever, busy, where the file system
 * answers ENOENT for a folder whose parent exists (`/proc/x` on Linux, seen with Node.js 20), so a
 * run given `-o /proc/x` hung and a first Ctrl-C could not end it. Here each missing folder on the
 * way is made once, from the first that exists, and the file system's own error is thrown.
 */
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { errnoCode, InTheWay } from './errors.js';

/** The first folder above `path` that is there and not a folder (ENOTDIR says only that one is). */
export async function blockerAbove(path: string): Promise<string | undefined> {
  for (let at = dirname(path); at !== dirname(at); at = dirname(at)) {
    const stats = await stat(at).catch(() => undefined);
    if (stats) return stats.isDirectory() ? undefined : at;
  }
  return undefined;
}

/**
 * Makes one folder; a folder (or a link to one) already there is fine. Something else in the way is
 * named (InTheWay); any other failure is the file system's error.
 */
async function makeOne(path: string, mode: number | undefined): Promise<void> {
  try {
    await mkdir(path, { mode });
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'EEXIST') {
      if ((await stat(path).catch(() => undefined))?.isDirectory()) return;
      throw new InTheWay(code, path, path);
    }
    const blocker = code === 'ENOTDIR' ? await blockerAbove(path) : undefined;
    throw blocker === undefined ? error : new InTheWay('ENOTDIR', path, blocker);
  }
}

/** Makes `path` and every missing folder above it (`mode` before the umask). */
export async function makeFolder(path: string, mode?: number): Promise<void> {
  try {
    await makeOne(path, mode);
    return;
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT' || dirname(path) === path) throw error;
  }
  await makeFolder(dirname(path), mode);
  // Once more, with the folder above now there: a second failure is the answer.
  await makeOne(path, mode);
}
