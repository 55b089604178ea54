/**
 * The output folder as a listing sees it: files under it are never inputs (a re-run must not redact
 * its own outputs). Judged by real paths as well as by the paths as named: an output folder named
 * through a link (`-o out`, `out -> calls/red`), or a searched folder named through one
 * (`link -> calls`, `-o calls/red`), lies inside the searched folder all the same, and when only the
 * paths as named were compared its outputs were found as inputs and redacted again, one folder
 * deeper, every run.
 */
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { FoundFile } from './found-file.js';

function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * isInside for two normalised absolute paths, by their strings: asked of every file a listing finds,
 * where path.relative, which resolves both paths again, would cost more than the rest of the check.
 */
function isAtOrUnder(child: string, parent: string): boolean {
  if (!child.startsWith(parent)) return false;
  return child.length === parent.length || parent.endsWith(sep) || child[parent.length] === sep;
}

/** Strictly inside: `child` is below `parent`, not `parent` itself. */
function isBelow(child: string, parent: string): boolean {
  return child !== parent && isInside(child, parent);
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

/** Its real path, or the path itself when it cannot be resolved (it is not there yet). */
async function realOrSelf(path: string): Promise<string> {
  return realpath(path).catch(() => path);
}

export class OutputFolderGuard {
  private constructor(
    /** The output folder as named (absolute), or undefined when there is none to keep out. */
    private readonly path: string | undefined,
    private readonly real: string | undefined,
  ) {}

  static async of(cwd: string, outDir: string | undefined): Promise<OutputFolderGuard> {
    if (!outDir) return new OutputFolderGuard(undefined, undefined);
    const path = resolve(cwd, outDir);
    return new OutputFolderGuard(path, await realOrSelf(path));
  }

  /** Whether the folder `dir` is the output folder itself. */
  async isOutputFolder(dir: string): Promise<boolean> {
    return this.real !== undefined && (await realOrSelf(dir)) === this.real;
  }

  /** Whether the folder `dir` lies inside the output folder (or is it), by its path or its real path. */
  async contains(dir: string): Promise<boolean> {
    if (!this.path || !this.real) return false;
    return isInside(dir, this.path) || isInside(await realOrSelf(dir), this.real);
  }

  /**
   * Where the output folder lies strictly inside the searched folder `root`: its path below `root`
   * (`/`-separated, for a walker to leave out), or undefined when it does not lie there.
   */
  async below(root: string): Promise<string | undefined> {
    if (!this.path || !this.real) return undefined;
    if (isBelow(this.path, root)) return toPosix(relative(root, this.path));
    const realRoot = await realOrSelf(root);
    return isBelow(this.real, realRoot) ? toPosix(relative(realRoot, this.real)) : undefined;
  }

  /**
   * Whether the found file lies in the output folder, by its path or by its real path: reached through
   * a link (`calls/old -> ../redacted`) it is an output all the same.
   */
  holds(file: Pick<FoundFile, 'path' | 'realPath'>): boolean {
    if (!this.path || !this.real) return false;
    return isAtOrUnder(file.path, this.path) || isAtOrUnder(file.realPath, this.real);
  }
}
