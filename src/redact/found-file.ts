/**
 * A found input, held compactly: a batch may hold 1,000,000 of them at once, so each keeps only its
 * name and a reference to its folder (shared by every file found in it); its paths are joined when
 * asked for. A file that is itself a symbolic link keeps its resolved real path. Once the plan has
 * placed its folder (see plan.ts), the found file is the plan's entry itself: no copy of it is made,
 * so a batch holds one object per input while it is planned, not two.
 */
import { lstatSync, statSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { extname, join, sep } from 'node:path';

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

  /** Where its files' outputs go and how their paths are shown: set by the plan (see plan.ts). */
  placed: FolderPlace | undefined = undefined;
}

/** Where the files of one input folder go and how their paths are shown, worked out once per folder. */
export interface FolderPlace {
  /** The output folder of its files, and the same ending in a separator. */
  readonly outFolder: string;
  readonly outPrefix: string;
  /** The folder as the files in it are shown ('' for the working folder), undefined: shown whole. */
  readonly shown: string | undefined;
  readonly outShown: string | undefined;
}

/** A file name (no separator) with its extension made `.wav`. */
export function wavName(name: string): string {
  const ext = extname(name);
  return `${ext && ext !== name ? name.slice(0, -ext.length) : name}.wav`;
}

/**
 * A path as displayPath shows it, from its folder's prefix as shown (see FolderPlace) and its name,
 * without working out a relative path for each file.
 */
function shownIn(prefix: string | undefined, path: string, name: string): string {
  if (prefix === undefined) return path;
  // In the working folder itself, a name starting with `..` reads as outside it: displayPath shows it whole.
  return prefix === '' && name.startsWith('..') ? path : prefix + name;
}

/**
 * A file reached by more than one hard link: its device and inode (`dev:ino`, exact: read as bigints,
 * as a number may round a large inode onto another's) and its size. A file with one link has none.
 */
export interface HardLinkId {
  readonly id: string;
  readonly size: number;
}

/** The id of a file with more than one hard link (nlink > 1), from one bigint stat; else undefined. */
function hardLinkOf(path: string, follow: boolean): HardLinkId | undefined {
  try {
    const info = (follow ? statSync : lstatSync)(path, { bigint: true, throwIfNoEntry: false });
    if (!info || info.nlink <= 1n || !info.isFile()) return undefined;
    return { id: `${info.dev}:${info.ino}`, size: Number(info.size) };
  } catch {
    return undefined;
  }
}

export class FoundFile {
  /** Why the plan refuses it, if it does. */
  rejected?: string = undefined;
  /** Its row among the plan's found files (see found-files.ts), once it has one. */
  row?: number = undefined;

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
    /** Set only for a file with more than one hard link (see hard-links.ts). */
    readonly hardLink?: HardLinkId,
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

  // The plan entry's fields (PlanEntry), once the plan has placed the folder.

  get #place(): FolderPlace {
    const place = this.folder.placed;
    if (!place) throw new Error(`the folder of ${this.path} has not been planned`);
    return place;
  }

  get input(): string {
    return this.path;
  }

  get display(): string {
    return shownIn(this.#place.shown, this.path, this.name);
  }

  get key(): string {
    return this.rel;
  }

  /** The output's own name: the input's (NFC unless named), its extension made `.wav`. */
  get outputName(): string {
    return wavName(this.origin === 'file' ? this.name : this.name.normalize('NFC'));
  }

  get outputDir(): string {
    return this.#place.outFolder;
  }

  get outputRel(): string {
    const { relDir, origin } = this.folder;
    return origin !== 'file' && relDir !== '' ? `${relDir}/${this.outputName}` : this.outputName;
  }

  get output(): string {
    return this.#place.outPrefix + this.outputName;
  }

  get outputDisplay(): string {
    const name = this.outputName;
    return shownIn(this.#place.outShown, this.#place.outPrefix + name, name);
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
    // Only a file with more links pays a second stat: a plain archive's files have one.
    const hardLink = info.nlink > 1 ? hardLinkOf(path, false) : undefined;
    return new FoundFile(folder, name, undefined, info.size, info.mtimeMs, hardLink);
  }
  const real = await realpath(path);
  const joined = join(folder.realDir ?? folder.dir, name);
  return new FoundFile(folder, name, real === joined ? undefined : real, -1, -1, hardLinkOf(real, true));
}
