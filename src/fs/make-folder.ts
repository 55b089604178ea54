/**
 * `mkdir -p` that always ends. Node.js's recursive mkdir loops for ever, busy, where the file system
 * answers ENOENT for a folder whose parent exists (`/proc/x` on Linux, seen with Node.js 20), so a
 * run given `-o /proc/x` hung and a first Ctrl-C could not end it. Here each missing folder on the
 * way is made once, from the first that exists, and the file system's own error is thrown.
 *
 * A folder made is a new entry of its parent, and only a flush of the parent makes it durable (as an
 * output's rename is: folder-flush.ts): a power loss could otherwise take the folder with everything
 * in it, the journal, the lock, outputs the journal calls done. So each folder made here is flushed
 * into its parent, top-down, before makeFolder resolves: once per folder made, none for one found.
 */
import { lstat, mkdir, readlink, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { errnoCode, InTheWay } from './errors.js';
import { folderFlushes } from './folder-flush.js';

/**
 * A parent this user may write in but not read (a drop folder, 0733) cannot be opened to be flushed:
 * nothing more can be done, and the folder made stands, as where folders cannot be flushed at all.
 */
const PARENT_UNREADABLE = new Set(['EACCES', 'EPERM']);

/**
 * Folders this process made whose entry is not yet flushed into their parent. A concurrent caller
 * that finds one there (eight downloads into one new folder) waits for that flush too, or it could
 * write into a folder a power loss would take.
 */
const unflushed = new Map<string, Promise<void>>();

/**
 * Flushes the entry of `path`, just made, into its parent, once the folders above it that this
 * process made are flushed into theirs (top-down, whichever concurrent call made them).
 */
function flushIntoParent(path: string): Promise<void> {
  const flushed = madeFoldersFlushed(dirname(path))
    .then(() => folderFlushes.flushed(dirname(path)))
    .catch((error: unknown) => {
      if (!PARENT_UNREADABLE.has(errnoCode(error))) throw error;
    })
    .finally(() => {
      // A folder removed and made again meanwhile has a flush of its own to wait for.
      if (unflushed.get(path) === flushed) unflushed.delete(path);
    });
  unflushed.set(path, flushed);
  return flushed;
}

/** Resolves once no folder at or above `path` made by this process waits for its parent's flush. */
async function madeFoldersFlushed(path: string): Promise<void> {
  if (unflushed.size === 0 && makingNow.size === 0) return;
  for (let at = path; ; at = dirname(at)) {
    // A folder being made now may already be on disk (a folder below it was just made in it) with
    // its flush not yet asked for: its making is waited for, then its flush. Its ENOENT is its
    // maker's to handle (by making the folder above first).
    const making = makingNow.get(at);
    if (making)
      await making.catch((error: unknown) => {
        if (errnoCode(error) !== 'ENOENT') throw error;
      });
    const flushing = unflushed.get(at);
    if (flushing) await flushing;
    if (dirname(at) === at) return;
  }
}

/** The first folder above `path` that is there and not a folder (ENOTDIR says only that one is). */
export async function blockerAbove(path: string): Promise<string | undefined> {
  for (let at = dirname(path); at !== dirname(at); at = dirname(at)) {
    const stats = await stat(at).catch(() => undefined);
    if (stats) return stats.isDirectory() ? undefined : at;
  }
  return undefined;
}

/**
 * The making of each folder under way in this process (its mkdir and its flush into its parent). Eight
 * downloads into one new folder make it once: a second mkdir answered EEXIST before the first one's
 * answer came back went on into a folder whose flush was not yet asked for, and flushed the folder
 * below it first (not top-down; seen once in the suite, eight downloads into a new `dl/new`).
 */
const makingNow = new Map<string, Promise<boolean>>();

/** makeOneNow, once at a time for each folder in this process: a concurrent call shares it. */
function makeOne(path: string, mode: number | undefined): Promise<boolean> {
  const underWay = makingNow.get(path);
  if (underWay) return underWay;
  const making = makeOneNow(path, mode);
  makingNow.set(path, making);
  const forget = () => {
    if (makingNow.get(path) === making) makingNow.delete(path);
  };
  making.then(forget, forget);
  return making;
}

/**
 * Makes one folder and flushes it into its parent; a folder (or a link to one) already there is fine
 * (false: not made now). Something else in the way is named (InTheWay); any other failure is the
 * file system's error.
 */
async function makeOneNow(path: string, mode: number | undefined): Promise<boolean> {
  try {
    await mkdir(path, { mode });
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'EEXIST') {
      if ((await stat(path).catch(() => undefined))?.isDirectory()) return false;
      throw new InTheWay(code, path, path, await linkTargetOf(path));
    }
    const blocker = code === 'ENOTDIR' ? await blockerAbove(path) : undefined;
    throw blocker === undefined ? error : new InTheWay('ENOTDIR', path, blocker);
  }
  await flushIntoParent(path);
  return true;
}

/** Where `path` points when it is a symbolic link, and whether anything is there; else undefined. */
async function linkTargetOf(path: string): Promise<{ path: string; exists: boolean } | undefined> {
  if (!(await lstat(path).catch(() => undefined))?.isSymbolicLink()) return undefined;
  const target = await readlink(path).catch(() => undefined);
  if (target === undefined) return undefined;
  const exists = (await stat(path).catch(() => undefined)) !== undefined;
  return { path: resolve(dirname(path), target), exists };
}

/**
 * Makes every missing folder from the first that exists down to `path`, each flushed into its parent;
 * those this process made, top-down.
 */
async function makeMissing(path: string, mode: number | undefined): Promise<string[]> {
  try {
    return (await makeOne(path, mode)) ? [path] : [];
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT' || dirname(path) === path) throw error;
  }
  const above = await makeMissing(dirname(path), mode);
  // Once more, with the folder above now there: a second failure is the answer.
  return (await makeOne(path, mode)) ? [...above, path] : above;
}

/**
 * Makes `path` and every missing folder above it (`mode` before the umask); resolves once each folder
 * on the way that this process made is flushed into its parent, whoever made it, with those made for
 * this call, top-down (root gives the config's to their user: settings/config-folder-owner.ts).
 */
export async function makeFolder(path: string, mode?: number): Promise<string[]> {
  const made = await makeMissing(path, mode);
  await madeFoldersFlushed(path);
  return made;
}
