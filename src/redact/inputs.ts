import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { describeFsError } from '../fs/errors.js';
import { walkFolder } from './folder-walk.js';
import { eachGlobMatch, globBase, globOptions } from './glob-pattern.js';
import { describeInputError, notingReaddir, type UnreadableFolder } from './listing-errors.js';
import { loopSafeReaddir } from './loop-guard.js';
import { listedFallback } from './files-from.js';
import { findFile, type FoundFile, InputFolder, type InputOrigin, RealFolders } from './found-file.js';
import { FoundFiles } from './found-files.js';
import { KeyIndex } from './key-index.js';
import { OutputFolderGuard } from './output-folder-guard.js';
import { PackedStrings } from './packed-strings.js';
import { collectingEvery } from './settle-heap.js';
import { giveTurn, turnDue } from './event-turn.js';

export type { InputOrigin } from './found-file.js';

type UnreadableReaddir = ReturnType<typeof notingReaddir>;

/** A file found for the batch (see found-file.ts: it holds its folder and name, not its paths). */
export type Candidate = FoundFile;

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

export interface ExpandRequest {
  cwd: string;
  /** Inputs named on the command line: files, folders or glob patterns. */
  args: readonly string[];
  /** Paths from --files-from: files or folders, never patterns. */
  listed?: readonly string[];
  /** Whether `listed` came NUL-separated: every entry is a path as it is, never a comment or trimmed. */
  listedVerbatim?: boolean;
  /** Files under this folder are never inputs (a re-run must not redact its own outputs). */
  outDir?: string;
  /** A first interrupt: the listing ends at once, its walks too, rejecting with the signal's reason. */
  stop?: AbortSignal;
}

/** A named input and what a stat of it said. */
interface Looked {
  arg: string;
  path: string;
  info?: Stats;
  failure?: unknown;
}

/** An .mp3's output lands beside it; the next run finds both, for one output: both rejected, every run. */
const IS_OUTPUT_FOLDER =
  'this folder is the output folder: its outputs would be taken as inputs; choose another output folder (-o)';

/** Its files are outputs of earlier runs: redacted again, each run would add a copy one folder up. */
const IN_OUTPUT_FOLDER =
  'this folder is inside the output folder, where its files may be outputs of earlier runs (never redacted again); choose an output folder outside the inputs (-o)';
/** Every output is a `.wav`: one named below the output folder is taken for one. */
const NAMED_IN_OUTPUT_FOLDER =
  'it lies inside the output folder, where it may be an output of an earlier run (never redacted again); move it out, or choose an output folder outside the inputs (-o)';
const MATCHES_IN_OUTPUT_FOLDER =
  'every file it matches is inside the output folder, where they may be outputs of earlier runs (never redacted again); choose an output folder outside the inputs (-o)';

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

/**
 * Expands inputs into files: named files as they are, folders searched recursively for `.wav` and
 * `.mp3` (any case, hidden files and folders skipped), glob patterns with fast-glob. Patterns are
 * case-sensitive, as the shell's are (`*.wav` does not match `A.WAV`: write `*.{wav,WAV}`); a path
 * that exists is never read as a pattern, so `take[1].wav` is a file. The same file reached twice
 * (same real path) is kept once, where it was first named.
 */
export async function expandInputs(request: ExpandRequest): Promise<ExpandedInputs> {
  // Loaded only for a folder or a pattern: a run over named files does without its 40 ms.
  let globber: typeof import('fast-glob') | undefined;
  const loadGlob = async () => (globber ??= (await import('fast-glob')).default);
  /**
   * Every path `list` finds, in order (as the strings sort), held packed (see packed-strings.ts). A
   * listing is the peak of a large batch's memory: over 1,000,000 files, fast-glob's array form
   * doubled it (341 against 182 MB), so paths are taken one by one; the paths as strings held 50 MB
   * more on V8's heap, which V8 then let grow to twice that; and fast-glob's `unique` keeps every path
   * it gave in a Map of its own. No input is lost without it: a run keeps each file once by its real
   * path (a path given twice counts as a duplicate there). A folder it cannot read is reported (a
   * problem of `arg`'s, shown by its path below `root`) and the rest listed.
   */
  const listAll = async (
    list: (found: (path: string) => void, readdir: UnreadableReaddir) => Promise<void>,
    arg: string,
    root: string,
  ): Promise<Iterable<string> | undefined> => {
    const paths = new PackedStrings();
    const unreadable: UnreadableFolder[] = [];
    await list((path) => paths.push(path), loopSafeReaddir(notingReaddir(unreadable)));
    for (const { path, reason } of unreadable) {
      result.problems.push({
        arg,
        path,
        reason: `cannot read the folder: ${reason}`,
        showPath: path !== root,
      });
    }
    realPaths.reserve(paths.length);
    // Nothing listed and a folder unreadable: its problem says enough.
    if (paths.length === 0 && unreadable.length > 0) return undefined;
    return paths.drainSorted(collectingEvery(), await paths.sortedOrderInTurns(stop));
  };
  const { cwd, stop } = request;
  const outputFolder = await OutputFolderGuard.of(cwd, request.outDir);
  const files = new FoundFiles();
  const realPaths = new KeyIndex((row, path) => files.hasRealPath(row, path));
  const result: ExpandedInputs = {
    files,
    realPaths,
    problems: [],
    duplicates: 0,
    emptyFolders: [],
  };
  const realFolders = new RealFolders();
  /** Folders by argument and path: the files of one share it. */
  const folders = new Map<string, InputFolder>();

  const folderOf = async (dir: string, relDir: string, origin: InputOrigin, arg: string) => {
    const id = `${origin}\0${arg}\0${dir}`;
    let folder = folders.get(id);
    if (!folder) {
      folder = new InputFolder(dir, await realFolders.get(dir), relDir.normalize('NFC'), origin, arg);
      folders.set(id, folder);
    }
    return folder;
  };

  /** The file, or undefined once its problem is reported (it is gone, a broken link…). */
  const find = async (folder: InputFolder, name: string): Promise<Candidate | undefined> => {
    try {
      return await findFile(folder, name);
    } catch (error) {
      const path = join(folder.dir, name);
      result.problems.push({
        arg: folder.arg,
        path,
        reason: describeInputError(error, path),
        showPath: true,
      });
      return undefined;
    }
  };

  const add = (file: Candidate): void => {
    // Indexed under the row it is about to take: the index asks only rows already there for their keys.
    if (realPaths.add(files.length, file.realPath) >= 0) result.duplicates++;
    else files.push(file);
  };

  /**
   * Adds the file `name` of `folder`; returns whether it counts as found (a file that is gone counts:
   * its problem is reported). A file a listing finds in the output folder (below the root, or through a
   * link to it) is an output, and is left out.
   */
  const addIn = async (folder: InputFolder, name: string): Promise<boolean> => {
    const file = await find(folder, name);
    if (file && outputFolder.holds(file)) {
      if (folder.origin !== 'file') return false;
      // A named `.wav` in the output folder itself is left to the plan, which rejects it as its own
      // output; an `.mp3` there is no output, and is redacted beside itself.
      if (name.endsWith('.wav') && !(await outputFolder.isOutputFolder(folder.dir))) {
        result.problems.push({ arg: folder.arg, path: file.path, reason: NAMED_IN_OUTPUT_FOLDER });
        return true;
      }
    }
    if (file) add(file);
    return true;
  };

  const expandFolder = async (dir: string, arg: string): Promise<void> => {
    if (await outputFolder.isOutputFolder(dir)) {
      result.problems.push({ arg, path: dir, reason: IS_OUTPUT_FOLDER });
      return;
    }
    if (await outputFolder.contains(dir)) {
      result.problems.push({ arg, path: dir, reason: IN_OUTPUT_FOLDER });
      return;
    }
    const skip = await outputFolder.below(dir);
    let found: Iterable<string> | undefined;
    try {
      found = await listAll((add, readdir) => walkFolder(dir, { skip, readdir, stop }, add), arg, dir);
    } catch (error) {
      if (stop?.aborted) throw error;
      result.problems.push({ arg, path: dir, reason: `cannot read the folder: ${describeFsError(error)}` });
      return;
    }
    if (!found) return;
    let count = 0;
    for (const rel of found) {
      if (turnDue()) await giveTurn(stop);
      const slash = rel.lastIndexOf('/');
      const relDir = slash < 0 ? '' : rel.slice(0, slash);
      const folder = await folderOf(relDir ? join(dir, relDir) : dir, relDir, 'folder', arg);
      if (await addIn(folder, rel.slice(slash + 1))) count++;
    }
    if (count === 0) result.emptyFolders.push(arg);
  };

  const expandGlob = async (pattern: string): Promise<void> => {
    const base = resolve(cwd, await globBase(pattern));
    let found: Iterable<string> | undefined;
    try {
      found = await listAll(
        async (add, readdir) =>
          eachGlobMatch(await loadGlob(), pattern, globOptions(cwd, readdir), stop, (path) =>
            add(resolve(cwd, path)),
          ),
        pattern,
        base,
      );
    } catch (error) {
      if (stop?.aborted) throw error;
      result.problems.push({
        arg: pattern,
        path: base,
        reason: `cannot expand the pattern: ${describeFsError(error)}`,
      });
      return;
    }
    if (!found) return;
    let count = 0;
    let matched = 0;
    for (const path of found) {
      if (turnDue()) await giveTurn(stop);
      matched++;
      const dir = dirname(path);
      // A file outside the fixed part (`../x/*.wav`) mirrors only its name.
      let relDir = toPosix(relative(base, dir));
      if (relDir.startsWith('..') || isAbsolute(relDir)) relDir = '';
      const folder = await folderOf(dir, relDir, 'glob', pattern);
      if (await addIn(folder, basename(path))) count++;
    }
    if (count === 0)
      result.problems.push({
        arg: pattern,
        path: base,
        reason: matched > 0 ? MATCHES_IN_OUTPUT_FOLDER : 'no files match this pattern',
      });
  };

  const statOf = async (arg: string): Promise<Looked> => {
    stop?.throwIfAborted();
    const path = resolve(cwd, arg);
    try {
      return { arg, path, info: await stat(path) };
    } catch (failure) {
      return { arg, path, failure };
    }
  };

  const expandLooked = async ({ arg, path, info, failure }: Looked, allowPattern: boolean) => {
    if (!info && allowPattern && (await loadGlob()).isDynamicPattern(arg)) return expandGlob(arg);
    if (!info) {
      result.problems.push({ arg, path, reason: describeInputError(failure, path) });
      return;
    }
    if (info.isDirectory()) return expandFolder(path, arg);
    await addIn(await folderOf(dirname(path), '', 'file', arg), basename(path));
  };

  /** A line of --files-from: the path as written when it names something, else its fallback. */
  const expandListed = async (line: string): Promise<void> => {
    let looked = await statOf(line);
    if (!looked.info && !request.listedVerbatim) {
      const fallback = listedFallback(line);
      if (fallback === undefined) return;
      if (fallback !== line) looked = await statOf(fallback);
    }
    await expandLooked(looked, false);
  };

  for (const arg of request.args) await expandLooked(await statOf(arg), true);
  for (const line of request.listed ?? []) await expandListed(line);
  return result;
}
