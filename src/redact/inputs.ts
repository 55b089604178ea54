import { readFile, realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { UsageError } from '../errors.js';
import { text } from 'node:stream/consumers';
import { describeFsError } from '../fs/errors.js';

/** How a file came into the batch; it decides where its output goes. */
export type InputOrigin = 'file' | 'folder' | 'glob';

export interface Candidate {
  /** Absolute path as found (symbolic links not resolved). */
  path: string;
  /** The file's real path: its identity for duplicates, the journal and the never-overwrite-an-input check. */
  realPath: string;
  /**
   * Path relative to its root, with `/` separators: a named file's base name, or the path under the
   * folder or under the glob's fixed leading part. The output mirrors it; the shard hash is taken of it.
   */
  rel: string;
  origin: InputOrigin;
  /** The argument (or list line) it came from. */
  arg: string;
}

/** A named input that gave nothing to send: it is reported as rejected, with its reason. */
export interface InputProblem {
  arg: string;
  path: string;
  reason: string;
}

export interface ExpandedInputs {
  files: Candidate[];
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
  /** Files under this folder are never inputs (a re-run must not redact its own outputs). */
  outDir?: string;
}

/** Real paths resolved at once while expanding a folder. */
const REALPATH_BATCH = 256;

/** Audio file names looked for in folders: `.wav` and `.mp3`, any letter case. */
export const AUDIO_NAME = /\.(wav|mp3)$/i;

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * The fixed leading folder of a glob pattern: every `/`-separated segment before the first one
 * with a glob character. `calls/**\/*.wav` → `calls`; `x/{a,b}/*.wav` → `x`; `*.wav` → `.`.
 */
export async function globBase(pattern: string): Promise<string> {
  const { default: fg } = await import('fast-glob');
  const segments = pattern.split('/');
  const fixed: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    if (segment !== '' && fg.isDynamicPattern(segment)) break;
    fixed.push(segment);
  }
  if (fixed.length === 0) return '.';
  if (fixed.length === 1 && fixed[0] === '') return '/';
  return fixed.join('/');
}

/** Reads --files-from: one path per line; blank lines and lines starting with `#` are ignored; ends trimmed. */
export function parseListText(textContent: string): string[] {
  return textContent
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** Reads the --files-from list: a file (relative to cwd) or `-` for standard input. */
export async function readFilesFrom(source: string, cwd: string, stdin: Readable): Promise<string[]> {
  if (source === '-') return parseListText(await text(stdin));
  try {
    return parseListText(await readFile(resolve(cwd, source), 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read the --files-from list ${source}: ${describeFsError(error)}`);
  }
}

/**
 * Expands inputs into files: named files as they are, folders searched recursively for `.wav` and
 * `.mp3` (any case, hidden files and folders skipped), glob patterns with fast-glob. Patterns are
 * case-sensitive, as the shell's are (`*.wav` does not match `A.WAV`: write `*.{wav,WAV}`); a path
 * that exists is never read as a pattern, so `take[1].wav` is a file. The same file reached twice
 * (same real path) is kept once, where it was first named.
 */
export async function expandInputs(request: ExpandRequest): Promise<ExpandedInputs> {
  const { default: fg } = await import('fast-glob');
  const { cwd } = request;
  const outDir = request.outDir ? resolve(cwd, request.outDir) : undefined;
  const outDirReal = outDir ? await realpath(outDir).catch(() => outDir) : undefined;
  const result: ExpandedInputs = { files: [], problems: [], duplicates: 0, emptyFolders: [] };
  const seen = new Set<string>();

  const add = async (
    path: string,
    rel: string,
    origin: InputOrigin,
    arg: string,
    known?: Promise<string>,
  ): Promise<void> => {
    let realPath: string;
    try {
      realPath = await (known ?? realpath(path));
    } catch (error) {
      result.problems.push({ arg, path, reason: describeFsError(error) });
      return;
    }
    // The same string when nothing was resolved: one copy in memory, not two.
    if (realPath === path) realPath = path;
    if (seen.has(realPath)) {
      result.duplicates++;
      return;
    }
    seen.add(realPath);
    result.files.push({ path, realPath, rel: rel.normalize('NFC'), origin, arg });
  };

  /** Whether the output folder is strictly inside `root`: then its files are found there and must be left out. */
  const outDirUnder = (root: string): boolean =>
    outDir !== undefined && outDir !== root && isInside(outDir, root);
  /** Keeps found files out of the output folder (named files are kept: the plan rejects them if needed). */
  const outsideOutDir = async (path: string): Promise<boolean> => {
    if (!outDir || !outDirReal) return true;
    if (isInside(path, outDir)) return false;
    const real = await realpath(path).catch(() => path);
    return !isInside(real, outDirReal);
  };

  const expandFolder = async (dir: string, arg: string): Promise<void> => {
    const skipOutDir = outDirUnder(dir);
    const ignore = skipOutDir && outDir ? [`${fg.escapePath(toPosix(relative(dir, outDir)))}/**`] : [];
    let found: string[];
    try {
      found = await fg('**/*.{wav,mp3}', {
        cwd: dir,
        onlyFiles: true,
        dot: false,
        caseSensitiveMatch: false,
        followSymbolicLinks: true,
        ignore,
      });
    } catch (error) {
      result.problems.push({ arg, path: dir, reason: `cannot read the folder: ${describeFsError(error)}` });
      return;
    }
    found.sort();
    let count = 0;
    // Real paths are resolved a batch at a time (in order): one at a time, 100,000 files take seconds.
    const paths = found.filter((rel) => AUDIO_NAME.test(rel));
    for (let start = 0; start < paths.length; start += REALPATH_BATCH) {
      const batch = paths.slice(start, start + REALPATH_BATCH).map((rel) => {
        const path = join(dir, rel);
        const real = realpath(path);
        real.catch(() => {});
        return { rel, path, real };
      });
      for (const { rel, path, real } of batch) {
        if (skipOutDir && !(await outsideOutDir(path))) continue;
        count++;
        await add(path, rel, 'folder', arg, real);
      }
    }
    if (count === 0) result.emptyFolders.push(arg);
  };

  const expandGlob = async (pattern: string): Promise<void> => {
    const base = resolve(cwd, await globBase(pattern));
    let found: string[];
    try {
      found = await fg(pattern, {
        cwd,
        absolute: true,
        onlyFiles: true,
        dot: false,
        caseSensitiveMatch: true,
        followSymbolicLinks: true,
        unique: true,
      });
    } catch (error) {
      result.problems.push({
        arg: pattern,
        path: base,
        reason: `cannot expand the pattern: ${describeFsError(error)}`,
      });
      return;
    }
    found = found.map((path) => resolve(path)).sort();
    const skipOutDir = outDirUnder(base);
    let count = 0;
    for (const path of found) {
      if (skipOutDir && !(await outsideOutDir(path))) continue;
      count++;
      let rel = toPosix(relative(base, path));
      if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) rel = basename(path);
      await add(path, rel, 'glob', pattern);
    }
    if (count === 0)
      result.problems.push({ arg: pattern, path: base, reason: 'no files match this pattern' });
  };

  const expandPath = async (arg: string, allowPattern: boolean): Promise<void> => {
    const path = resolve(cwd, arg);
    let info: Awaited<ReturnType<typeof stat>> | undefined;
    let failure: unknown;
    try {
      info = await stat(path);
    } catch (error) {
      failure = error;
    }
    if (!info && allowPattern && fg.isDynamicPattern(arg)) return expandGlob(arg);
    if (!info) {
      result.problems.push({ arg, path, reason: describeFsError(failure) });
      return;
    }
    if (info.isDirectory()) return expandFolder(path, arg);
    await add(path, basename(path), 'file', arg);
  };

  for (const arg of request.args) await expandPath(arg, true);
  for (const line of request.listed ?? []) await expandPath(line, false);
  return result;
}
