/**
 * A found input, held compactly: a batch may hold 100,000 of them at once, so each keeps only its
 * name and a reference to its folder (shared by every file found in it); its paths are joined when
 * asked for. A file that is itself a symbolic link keeps its resolved real path.
 */
import { lstatSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';

/** How a file came into the batch; it decides where its output goes. */
export type InputOrigin = 'file' | 'folder' | 'glob';

/** `dir` ending in one separator, so that a path is the prefix and a name (a root folder has one already). */
function withSeparator(dir: string): string {
  return dir.endsWith(sep) ? dir : `${dir}${sep}`;
}

/** What every file found in one folder by one argument shares. */
export class InputFolder {
  /** `dir` and `realDir` ending in a separator: a file's paths are these and its name. */
  readonly prefix: string;
  readonly realPrefix: string;

  constructor(
    /** Absolute path, as found (symbolic links not resolved). */
    readonly dir: string,
    /** Its real path (the same string as `dir` when no link is on the way). */
    readonly realDir: string | undefined,
    /** Its path relative to the argument's root, `/`-separated, NFC; '' at the root. */
    readonly relDir: string,
    readonly origin: InputOrigin,
    /** The argument (or list line) its files came from. */
    readonly arg: string,
  ) {
    this.prefix = withSeparator(dir);
    this.realPrefix = realDir === undefined ? this.prefix : withSeparator(realDir);
  }
}

export class FoundFile {
  constructor(
    readonly folder: InputFolder,
    /** The file's name in its folder, as found. */
    readonly name: string,
    /** Its real path when the folder's real path and its name do not give it (it is a link itself). */
    readonly linkedTo?: string,
    /**
     * Its size and modification time as the lstat that found it saw them (-1 when it is a link or
     * was not seen): the journal's decision needs them, so a re-run makes one system call per input.
     */
    readonly seenSize = -1,
    readonly seenMtimeMs = -1,
  ) {}

  /** Absolute path as found (symbolic links not resolved). */
  get path(): string {
    // A name from a folder listing has no separator, `.` or `..`: a join would only cost time.
    return this.folder.prefix + this.name;
  }

  /** The file's real path: its identity for duplicates, the journal and the never-overwrite-an-input check. */
  get realPath(): string {
    return this.linkedTo ?? this.folder.realPrefix + this.name;
  }

  /**
   * Path relative to its root, with `/` separators, NFC: a named file's base name, or the path under
   * the folder or under the glob's fixed leading part. The output mirrors it; the shard hash is taken of it.
   */
  get rel(): string {
    const name = this.name.normalize('NFC');
    return this.folder.relDir ? `${this.folder.relDir}/${name}` : name;
  }

  get origin(): InputOrigin {
    return this.folder.origin;
  }

  get arg(): string {
    return this.folder.arg;
  }
}

/** Real paths of folders, each resolved once (a failure is kept as undefined: its files resolve one by one). */
export class RealFolders {
  readonly #known = new Map<string, Promise<string | undefined>>();

  get(dir: string): Promise<string | undefined> {
    let real = this.#known.get(dir);
    if (!real) {
      // The same string when nothing was resolved: one copy in memory, not two.
      real = realpath(dir).then(
        (resolved) => (resolved === dir ? dir : resolved),
        () => undefined,
      );
      this.#known.set(dir, real);
    }
    return real;
  }
}

/**
 * The file `name` of `folder`. Its real path is its folder's joined with its name unless the file is
 * a link itself (an lstat tells, far cheaper than a realpath per file); a link, a file whose folder
 * could not be resolved and a file that is gone are resolved alone, so their errors are realpath's.
 */
export async function findFile(folder: InputFolder, name: string): Promise<FoundFile> {
  const path = join(folder.dir, name);
  let info: ReturnType<typeof lstatSync> | undefined;
  try {
    // Synchronous on purpose: a folder of 100,000 files makes 100,000 of them, each a few microseconds.
    info = lstatSync(path, { throwIfNoEntry: false });
  } catch {
    info = undefined;
  }
  if (info && !info.isSymbolicLink() && folder.realDir !== undefined) {
    return new FoundFile(folder, name, undefined, info.size, info.mtimeMs);
  }
  const real = await realpath(path);
  const joined = join(folder.realDir ?? folder.dir, name);
  return new FoundFile(folder, name, real === joined ? undefined : real);
}
