/**
 * Containment: everything vredact writes or sweeps stays inside the output folder. The output folder
 * itself may be a symbolic link (a user's choice); a folder below it that is a link leading outside
 * it (`out/sub -> /elsewhere`) is refused, for writes and for sweeps alike.
 *
 * The check runs just before the write; a link swapped in between by someone who can already write
 * into the output folder is not defended against (that needs openat(2), which Node lacks).
 */
import { lstat, realpath } from 'node:fs/promises';
import { makeFolder } from './make-folder.js';
import { dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { displayText } from '../output/sanitize.js';
import { asLocalFsError, errnoCode, LocalFsError } from './errors.js';
import { probeWrite } from './writable.js';

/** A path below the output folder that would lead outside it: refused, for that file alone. */
export class OutsideOutputFolderError extends LocalFsError {
  override name = 'OutsideOutputFolderError';
  override readonly hint: string;
  constructor(path: string, target: string | undefined) {
    super(path, 'ELINKOUT', 'refusing to write through');
    this.message =
      target === undefined
        ? `refusing to write through a symbolic link that leads nowhere inside the output folder: ${displayText(path)}`
        : `refusing to write through a symbolic link that leads outside the output folder: ${displayText(path)} -> ${displayText(target)}`;
    this.hint = 'replace the link with a real folder, or choose an output folder that no link leads out of';
  }
}

function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

async function realpathOrUndefined(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw asLocalFsError(error, path, 'resolving');
  }
}

/**
 * Checks that the folder `relativeFolder` below `outDir` does not lead outside it: every component
 * that exists is looked at with lstat, and each symbolic link among them must resolve inside the
 * output folder. Returns the folder's absolute path. Components that do not exist yet are fine: they
 * will be created as real folders.
 */
export async function resolveFolderInside(outDir: string, relativeFolder: string): Promise<string> {
  const root = resolve(outDir);
  const rel = normalize(relativeFolder === '' ? '.' : relativeFolder);
  if (isAbsolute(rel) || rel === '..' || rel.startsWith(`..${sep}`)) {
    throw new OutsideOutputFolderError(join(root, rel), resolve(root, rel));
  }
  const target = join(root, rel);
  if (rel === '.') return target;
  const realRoot = await realpathOrUndefined(root);
  if (realRoot === undefined) return target; // nothing exists yet: nothing can lead out
  let current = root;
  for (const segment of rel.split(sep)) {
    current = join(current, segment);
    let isLink: boolean;
    try {
      isLink = (await lstat(current)).isSymbolicLink();
    } catch (error) {
      // ENOTDIR: a file on the way, which nothing below can lead out of (making the folder names it).
      if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return target;
      throw asLocalFsError(error, current, 'checking');
    }
    if (!isLink) continue;
    const leadsTo = await realpathOrUndefined(current);
    if (leadsTo === undefined || !isWithin(realRoot, leadsTo)) {
      throw new OutsideOutputFolderError(current, leadsTo);
    }
  }
  return target;
}

/**
 * The absolute path of the file `relativePath` below `outDir`, after checking that no folder on the
 * way leads outside it (see resolveFolderInside). The file itself may be a link: it is replaced by
 * the rename that publishes a new output, never written through.
 */
export async function resolveInside(outDir: string, relativePath: string): Promise<string> {
  const rel = normalize(relativePath);
  const parts = rel.split(sep);
  const name = parts.pop() ?? '';
  if (name === '' || name === '.' || name === '..') {
    throw new OutsideOutputFolderError(join(resolve(outDir), rel), undefined);
  }
  return join(await resolveFolderInside(outDir, parts.join(sep)), name);
}

/** Folders remembered by one OutputFolder; past this many it starts afresh (memory stays bounded). */
const REMEMBERED_FOLDERS = 10_000;

/**
 * resolveInside for the many files of one run: a batch writes thousands of outputs into a few
 * folders, and checking every folder on the way again for each file cost a realpath and an lstat per
 * component per file. A folder is checked once per run; a refusal is not remembered, so it is
 * checked (and named) again for each file that would go through it.
 */
export class OutputFolder {
  readonly #checked = new Map<string, Promise<string>>();
  readonly #writable = new Map<string, Promise<void>>();

  constructor(readonly path: string) {}

  /** The absolute path of `relativePath` below the folder, checked as resolveInside checks it. */
  async resolve(relativePath: string): Promise<string> {
    const rel = normalize(relativePath);
    const cut = rel.lastIndexOf(sep);
    const name = rel.slice(cut + 1);
    if (name === '' || name === '.' || name === '..') return resolveInside(this.path, relativePath);
    const folder = cut === -1 ? '' : rel.slice(0, cut);
    let checked = this.#checked.get(folder);
    if (!checked) {
      if (this.#checked.size >= REMEMBERED_FOLDERS) this.#checked.clear();
      checked = resolveFolderInside(this.path, folder);
      this.#checked.set(folder, checked);
      checked.catch(() => this.#checked.delete(folder));
    }
    return join(await checked, name);
  }

  /**
   * Throws the LocalFsError of the first thing that would stop an output being created where
   * `relativePath` goes: a folder on the way that leads out (resolve), one that cannot be made, or
   * one where no file can be created (probeWrite). Asked before an input is sent: a folder the run
   * cannot write into cost an upload per input and per run, each failing at the end. Once per folder
   * and run; a failure is not remembered, so each input for that folder is refused and named.
   */
  async checkWritable(relativePath: string): Promise<void> {
    const dir = dirname(await this.resolve(relativePath));
    let writable = this.#writable.get(dir);
    if (!writable) {
      if (this.#writable.size >= REMEMBERED_FOLDERS) this.#writable.clear();
      writable = (async () => {
        await makeFolder(dir).catch((error: unknown) => {
          throw asLocalFsError(error, dir, 'creating the output folder');
        });
        await probeWrite(dir).catch((error: unknown) => {
          throw asLocalFsError(error, dir, 'creating a file in');
        });
      })();
      this.#writable.set(dir, writable);
      writable.catch(() => this.#writable.delete(dir));
    }
    await writable;
  }

  /**
   * Forgets that the folder of `relativePath` took a file: a write there has failed since, so the next
   * input for it is checked again before it is sent. A folder made read-only midway (a permission fix,
   * a retention job) was sent the rest of the batch, every answer failing.
   */
  async forgetWritable(relativePath: string): Promise<void> {
    const path = await this.resolve(relativePath).catch(() => undefined);
    if (path !== undefined) this.#writable.delete(dirname(path));
  }
}
