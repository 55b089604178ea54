/**
 * What the expansion of a batch's inputs keeps as it goes: each file once (by its real path, where it
 * was first named), the output folder's files left out, and the problems to report (an input that
 * gives nothing, a folder that cannot be read). inputs.ts decides what each argument names; this is
 * where what they name is kept.
 */
import { join } from 'node:path';
import { findFile, type FoundFile, InputFolder, type InputOrigin, RealFolders } from './found-file.js';
import { FoundFiles } from './found-files.js';
import { KeyIndex } from './key-index.js';
import { describeInputError, notingReaddir, type UnreadableFolder } from './listing-errors.js';
import { loopSafeReaddir } from './loop-guard.js';
import type { OutputFolderGuard } from './output-folder-guard.js';
import { PackedStrings } from './packed-strings.js';
import { collectingEvery } from './settle-heap.js';

/** The readdir a listing walks with: it notes the folders it cannot read rather than failing. */
export type UnreadableReaddir = ReturnType<typeof notingReaddir>;

/** A named input that gave nothing to send: it is reported as rejected, with its reason. */
export interface InputProblem {
  arg: string;
  path: string;
  reason: string;
  /** Shown by its path rather than by the argument (a file or a folder found under it). */
  showPath?: boolean;
}

export interface ExpandedInputs {
  /** The files kept, packed (a batch may hold 1,000,000 of them). */
  files: FoundFiles;
  /**
   * The rows of `files` by their real paths (the plan looks up there whether an output would
   * overwrite an input, then lets it go: undefined).
   */
  realPaths: KeyIndex | undefined;
  problems: InputProblem[];
  /** Inputs dropped because an earlier one was the same file (same real path). */
  duplicates: number;
  /** Folders named that hold no .wav or .mp3 file: a warning, not an error. */
  emptyFolders: string[];
}

/** Every output is a `.wav`: one named below the output folder is taken for one. */
const NAMED_IN_OUTPUT_FOLDER =
  'it lies inside the output folder, where it may be an output of an earlier run (never redacted again); move it out, or choose an output folder outside the inputs (-o)';

export class FoundInputs {
  readonly #expanded: ExpandedInputs;
  readonly #files: FoundFiles;
  readonly #realPaths: KeyIndex;
  readonly #outputFolder: OutputFolderGuard;
  readonly #realFolders = new RealFolders();
  /** Folders by argument and path: the files of one share it. */
  readonly #folders = new Map<string, InputFolder>();

  constructor(outputFolder: OutputFolderGuard) {
    this.#outputFolder = outputFolder;
    const files = new FoundFiles();
    this.#files = files;
    this.#realPaths = new KeyIndex((row, path) => files.hasRealPath(row, path));
    this.#expanded = { files, realPaths: this.#realPaths, problems: [], duplicates: 0, emptyFolders: [] };
  }

  /** What was found: the files, the problems, the duplicates and the empty folders. */
  get expanded(): ExpandedInputs {
    return this.#expanded;
  }

  problem(problem: InputProblem): void {
    this.#expanded.problems.push(problem);
  }

  emptyFolder(arg: string): void {
    this.#expanded.emptyFolders.push(arg);
  }

  /** The folder `dir` as found through `arg`, made once and shared by its files. */
  async folderOf(dir: string, relDir: string, origin: InputOrigin, arg: string): Promise<InputFolder> {
    const id = `${origin}\0${arg}\0${dir}`;
    let folder = this.#folders.get(id);
    if (!folder) {
      const real = await this.#realFolders.get(dir);
      folder = new InputFolder(dir, real, relDir.normalize('NFC'), origin, arg);
      this.#folders.set(id, folder);
    }
    return folder;
  }

  /**
   * Every path `list` finds, in order (as the strings sort), held packed (see packed-strings.ts). A
   * listing is the peak of a large batch's memory: over 1,000,000 files, fast-glob's array form
   * doubled it (341 against 182 MB), so paths are taken one by one; the paths as strings held 50 MB
   * more on V8's heap, which V8 then let grow to twice that; and fast-glob's `unique` keeps every path
   * it gave in a Map of its own. No input is lost without it: a run keeps each file once by its real
   * path (a path given twice counts as a duplicate there). A folder it cannot read is reported (a
   * problem of `arg`'s, shown by its path below `root`) and the rest listed. Their sort gives way to
   * `stop` (over 1,000,000 paths it takes seconds).
   */
  async listAll(
    list: (found: (path: string) => void, readdir: UnreadableReaddir) => Promise<void>,
    arg: string,
    root: string,
    stop: AbortSignal | undefined,
  ): Promise<Iterable<string> | undefined> {
    const paths = new PackedStrings();
    const unreadable: UnreadableFolder[] = [];
    await list((path) => paths.push(path), loopSafeReaddir(notingReaddir(unreadable)));
    for (const { path, reason } of unreadable) {
      this.problem({ arg, path, reason: `cannot read the folder: ${reason}`, showPath: path !== root });
    }
    this.#realPaths.reserve(paths.length);
    // Nothing listed and a folder unreadable: its problem says enough.
    if (paths.length === 0 && unreadable.length > 0) return undefined;
    return paths.drainSorted(collectingEvery(), await paths.sortedOrderInTurns(stop));
  }

  /**
   * Adds the file `name` of `folder`; returns whether it counts as found (a file that is gone counts:
   * its problem is reported). A file a listing finds in the output folder (below the root, or through a
   * link to it) is an output, and is left out.
   */
  async addIn(folder: InputFolder, name: string): Promise<boolean> {
    const file = await this.#find(folder, name);
    if (file && this.#outputFolder.holds(file)) {
      if (folder.origin !== 'file') return false;
      // A named `.wav` in the output folder itself is left to the plan, which rejects it as its own
      // output; an `.mp3` there is no output, and is redacted beside itself.
      if (name.endsWith('.wav') && !(await this.#outputFolder.isOutputFolder(folder.dir))) {
        this.problem({ arg: folder.arg, path: file.path, reason: NAMED_IN_OUTPUT_FOLDER });
        return true;
      }
    }
    if (file) this.#add(file);
    return true;
  }

  /** The file, or undefined once its problem is reported (it is gone, a broken link…). */
  async #find(folder: InputFolder, name: string): Promise<FoundFile | undefined> {
    try {
      return await findFile(folder, name);
    } catch (error) {
      const path = join(folder.dir, name);
      this.problem({ arg: folder.arg, path, reason: describeInputError(error, path), showPath: true });
      return undefined;
    }
  }

  #add(file: FoundFile): void {
    // Indexed under the row it is about to take: the index asks only rows already there for their keys.
    if (this.#realPaths.add(this.#files.length, file.realPath) >= 0) this.#expanded.duplicates++;
    else this.#files.push(file);
  }
}
