import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { NAME_MAX_BYTES } from '../fs/atomic-write.js';
import { type FolderPlace, FoundFile, type InputFolder, wavName } from './found-file.js';
import type { ExpandedInputs } from './inputs.js';
import type { Shard } from './options.js';

/** One input of the batch and where its output goes; `rejected` is set when the plan already refuses it. */
export interface PlanEntry {
  /** Absolute path of the input as named or found. */
  input: string;
  /** Real path of the input (its identity in the journal); the same as `input` for a missing one. */
  realPath: string;
  /** The input as shown to the user: relative to the working folder when inside it. */
  display: string;
  /** The shard key: the input's path relative to its root (or the argument itself for a missing input). */
  key: string;
  /** Absolute output path; empty for inputs that never got one (missing). */
  output: string;
  /** The output relative to the output folder, `/`-separated. */
  outputRel: string;
  outputDisplay: string;
  /** The folder the output goes in (absent: the output's own folder name says). */
  outputDir?: string;
  rejected?: string;
  /** The input's size and modification time when its discovery saw them; -1 or absent when it did not. */
  seenSize?: number;
  seenMtimeMs?: number;
}

/** Where a plan's paths are shown from and its outputs go: one object shared by its entries. */
export interface PlanPlaces {
  cwd: string;
  /** Absolute output folder. */
  outDir: string;
}

/** A folder as displayPath shows the files in it: '' for the working folder, undefined for one outside it. */
function shownPrefix(dir: string, cwd: string): string | undefined {
  const rel = relative(cwd, dir);
  if (rel === '') return '';
  return rel.startsWith('..') || isAbsolute(rel) ? undefined : `${rel}${sep}`;
}

/** Places an input folder: where its files' outputs go and how their paths are shown (see FolderPlace). */
export function placeFolder(folder: InputFolder, places: PlanPlaces): FolderPlace {
  const mirrored = folder.origin !== 'file' && folder.relDir !== '';
  const outFolder = mirrored ? join(places.outDir, ...folder.relDir.split('/')) : places.outDir;
  const place: FolderPlace = {
    outFolder,
    outPrefix: outFolder.endsWith(sep) ? outFolder : `${outFolder}${sep}`,
    shown: shownPrefix(folder.dir, places.cwd),
    outShown: shownPrefix(outFolder, places.cwd),
  };
  folder.placed = place;
  return place;
}

export interface Plan {
  outDir: string;
  entries: PlanEntry[];
  /** Inputs left to other shards. */
  otherShards: number;
  duplicates: number;
}

/** Shows `path` relative to `cwd` when it is inside it, absolute otherwise. */
export function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  if (rel === '') return '.';
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

/**
 * Which shard (0-based) a key belongs to: the first 48 bits of its SHA-256, modulo `count`. Depends on
 * nothing but the key, so every machine given the same arguments agrees, and the shards are disjoint.
 */
export function shardOf(key: string, count: number): number {
  const digest = createHash('sha256').update(key.normalize('NFC'), 'utf8').digest();
  return digest.readUIntBE(0, 6) % count;
}

export function inShard(key: string, shard: Shard | undefined): boolean {
  return !shard || shardOf(key, shard.count) === shard.index - 1;
}

/** The output's path relative to the output folder: the input's relative path, its extension made `.wav`. */
export function outputRelFor(rel: string): string {
  const slash = rel.lastIndexOf('/');
  return slash < 0 ? wavName(rel) : `${rel.slice(0, slash)}/${wavName(rel.slice(slash + 1))}`;
}

/** UTF-8 takes at most 3 bytes per UTF-16 unit: a path this short has no part over the limit. */
const SURELY_SHORT = Math.floor(NAME_MAX_BYTES / 3);

/**
 * An output whose name (or a folder's) is longer than a file system takes cannot be saved: it is
 * rejected before anything is sent. Its temporary name is short and fixed, so it always fits.
 */
export function nameTooLong(outputRel: string): string | undefined {
  if (outputRel.length <= SURELY_SHORT) return undefined;
  for (const part of outputRel.split('/')) {
    const bytes = Buffer.byteLength(part, 'utf8');
    if (bytes > NAME_MAX_BYTES) {
      return `its output name is ${bytes} bytes long, more than the ${NAME_MAX_BYTES} a file name may have; rename the input`;
    }
  }
  return undefined;
}

/** On case-insensitive file systems (macOS, Windows by default) `A.wav` and `a.wav` are one file. */
const CASE_INSENSITIVE = process.platform === 'darwin' || process.platform === 'win32';

function collisionKey(path: string): string {
  const normalized = path.normalize('NFC');
  return CASE_INSENSITIVE ? normalized.toLowerCase() : normalized;
}

/**
 * The real path an output would have, through symbolic links of its folders (one realpath per
 * folder, not per file). A link at the output's own name is not followed: the output is published
 * by a rename, which replaces the link itself, never what it points to.
 */
async function realOutputPath(entry: PlanEntry, cache: Map<string, string>): Promise<string> {
  const dir = entry.outputDir ?? dirname(entry.output);
  let real = cache.get(dir);
  if (real === undefined) {
    real = await realpath(dir).catch(() => dir);
    cache.set(dir, real);
  }
  // A real path is absolute and normalised, and a base name has no separator: no join needed.
  const name = entry instanceof FoundFile ? entry.outputName : basename(entry.output);
  return real.endsWith(sep) ? real + name : real + sep + name;
}

/**
 * Maps every input to its output, before anything is sent: a named file to `<out>/<stem>.wav`,
 * files found in a folder or by a glob to their relative path under `<out>`. Two inputs on one
 * output are both rejected, and so is an output that would overwrite an input. The shard filter
 * comes last, so every machine sees the same rejections for the same arguments. The found files
 * become the plan's entries, and `expanded.byRealPath` is emptied once read.
 */
export async function buildPlan(
  expanded: ExpandedInputs,
  options: { cwd: string; outDir: string; shard?: Shard | undefined },
): Promise<Plan> {
  const outDir = resolve(options.cwd, options.outDir);
  const entries: PlanEntry[] = [];
  for (const problem of expanded.problems) {
    entries.push({
      input: problem.path,
      realPath: problem.path,
      display: problem.arg,
      key: problem.arg,
      output: '',
      outputRel: '',
      outputDisplay: '',
      rejected: problem.reason,
    });
  }
  const places: PlanPlaces = { cwd: options.cwd, outDir };
  const placed = new Set<InputFolder>();
  for (const file of expanded.files) {
    if (!placed.has(file.folder)) {
      placeFolder(file.folder, places);
      placed.add(file.folder);
    }
    entries.push(file);
  }

  const dirCache = new Map<string, string>();
  for (const entry of entries) {
    if (entry.rejected || !entry.outputRel) continue;
    entry.rejected = nameTooLong(entry.outputRel);
    if (entry.rejected) continue;
    const real = await realOutputPath(entry, dirCache);
    const victim = expanded.byRealPath.get(real);
    if (victim) {
      entry.rejected =
        real === entry.realPath
          ? `its output ${entry.outputDisplay} would overwrite the input itself`
          : `its output ${entry.outputDisplay} would overwrite the input ${displayPath(victim.path, options.cwd)}`;
    }
  }
  // Read for the last time: let go before the next map of one key per input is made, so the two are
  // never held together (the plan's peak over 1,000,000 inputs).
  expanded.byRealPath.clear();

  // One entry per output, an array only where two or more meet (the usual case holds no array). A
  // conflict is named above any other reason.
  const byOutput = new Map<string, PlanEntry | PlanEntry[]>();
  for (const entry of entries) {
    const outputRel = entry.outputRel;
    if (!outputRel) continue;
    const key = collisionKey(outputRel);
    const met = byOutput.get(key);
    if (met === undefined) byOutput.set(key, entry);
    else if (Array.isArray(met)) met.push(entry);
    else byOutput.set(key, [met, entry]);
  }
  for (const group of byOutput.values()) {
    if (!Array.isArray(group)) continue;
    for (const entry of group) {
      const others = group.filter((other) => other !== entry).map((other) => other.display);
      entry.rejected = `same output ${entry.outputDisplay} as ${others.join(', ')}`;
    }
  }
  byOutput.clear();

  const mine = entries.filter((entry) => inShard(entry.key, options.shard));
  return {
    outDir,
    entries: mine,
    otherShards: entries.length - mine.length,
    duplicates: expanded.duplicates,
  };
}
