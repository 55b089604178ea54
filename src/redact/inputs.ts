/**
 * What each input names: a file as it is, a folder searched recursively, a glob pattern expanded,
 * a line of --files-from as written or its fallback. What they name is kept in found-inputs.ts.
 */
import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { describeFsError } from '../fs/errors.js';
import { walkFolder } from './folder-walk.js';
import { type ExpandedInputs, FoundInputs } from './found-inputs.js';
import { eachGlobMatch, globBase, globOptions } from './glob-pattern.js';
import { describeInputError } from './listing-errors.js';
import { listedFallback } from './files-from.js';
import { OutputFolderGuard } from './output-folder-guard.js';
import { giveTurn, turnDue } from './event-turn.js';

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
  const { cwd, stop } = request;
  const outputFolder = await OutputFolderGuard.of(cwd, request.outDir);
  const inputs = new FoundInputs(outputFolder);

  const expandFolder = async (dir: string, arg: string): Promise<void> => {
    if (await outputFolder.isOutputFolder(dir)) {
      inputs.problem({ arg, path: dir, reason: IS_OUTPUT_FOLDER });
      return;
    }
    if (await outputFolder.contains(dir)) {
      inputs.problem({ arg, path: dir, reason: IN_OUTPUT_FOLDER });
      return;
    }
    const skip = await outputFolder.below(dir);
    let found: Iterable<string> | undefined;
    try {
      found = await inputs.listAll(
        (add, readdir) => walkFolder(dir, { skip, readdir, stop }, add),
        arg,
        dir,
        stop,
      );
    } catch (error) {
      if (stop?.aborted) throw error;
      inputs.problem({ arg, path: dir, reason: `cannot read the folder: ${describeFsError(error)}` });
      return;
    }
    if (!found) return;
    let count = 0;
    for (const rel of found) {
      if (turnDue()) await giveTurn(stop);
      const slash = rel.lastIndexOf('/');
      const relDir = slash < 0 ? '' : rel.slice(0, slash);
      const folder = await inputs.folderOf(relDir ? join(dir, relDir) : dir, relDir, 'folder', arg);
      if (await inputs.addIn(folder, rel.slice(slash + 1))) count++;
    }
    if (count === 0) inputs.emptyFolder(arg);
  };

  const expandGlob = async (pattern: string): Promise<void> => {
    const base = resolve(cwd, await globBase(pattern));
    let found: Iterable<string> | undefined;
    try {
      found = await inputs.listAll(
        async (add, readdir) =>
          eachGlobMatch(await loadGlob(), pattern, globOptions(cwd, readdir), stop, (path) =>
            add(resolve(cwd, path)),
          ),
        pattern,
        base,
        stop,
      );
    } catch (error) {
      if (stop?.aborted) throw error;
      inputs.problem({
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
      const folder = await inputs.folderOf(dir, relDir, 'glob', pattern);
      if (await inputs.addIn(folder, basename(path))) count++;
    }
    if (count === 0)
      inputs.problem({
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
      inputs.problem({ arg, path, reason: describeInputError(failure, path) });
      return;
    }
    if (info.isDirectory()) return expandFolder(path, arg);
    await inputs.addIn(await inputs.folderOf(dirname(path), '', 'file', arg), basename(path));
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
  return inputs.expanded;
}
