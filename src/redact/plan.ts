import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { temporaryNameMaxBytes } from '../fs/atomic-write.js';
import { nameTooLong, pathTooLong } from './name-limits.js';
import { type FolderPlace, FoundFile, type InputFolder, wavName } from './found-file.js';
import type { FoundFiles } from './found-files.js';
import type { ExpandedInputs } from './found-inputs.js';
import { giveTurn, turnDue } from './event-turn.js';
import { HardLinks, linkedShardKeys } from './hard-links.js';
import { KeyIndex } from './key-index.js';
import { collisionKey, type CaseUnknown, rejectMeetings } from './output-meetings.js';
import type { Shard } from './options.js';
import { PlannedInputs } from './planned-inputs.js';

/** One input of the batch and where its output goes; `rejected` is set when the plan already refuses it. */
export interface PlanEntry {
  /** Absolute path of the input as named or found. */
  input: string;
  /** Real path of the input (its identity in the journal); the same as `input` for a missing one. */
  realPath: string;
  /** The input as shown to the user: relative to the working folder when inside it. */
  display: string;
  /**
   * The shard key: the input's path relative to its root (for a file of more than one hard link, the
   * least of its links' paths: see linkedShardKeys in hard-links.ts), the argument itself for a missing input.
   */
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
  /** Its row among the plan's found files (see PlannedInputs); absent for a named input that gave none. */
  row?: number | undefined;
  /** When its latest journal line, of any journal, was written: set as the journals decide it (triage). */
  journaledAtMs?: number;
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
  entries: PlanEntries;
  /** The found files as the journal's reader knows them: its record table is built on their rows. */
  inputs: PlannedInputs;
  /** The folders the outputs go in (where an earlier run may have left partial files). */
  outputFolders: ReadonlySet<string>;
  /** Inputs left to other shards. */
  otherShards: number;
  duplicates: number;
  /** This run's inputs that are files of more than one hard link (see hard-links.ts). */
  hardLinks: HardLinks;
  /**
   * Set when the output folder could not be asked whether it ignores letter case (see letter-case.ts)
   * and outputs differ only in case: how many inputs those are, and two of them, as shown.
   */
  caseUnknown?: CaseUnknown;
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

/**
 * The real path an output would have, through symbolic links of its folders (one realpath per
 * folder, not per file). A link at the output's own name is not followed: the output is published
 * by a rename, which replaces the link itself, never what it points to.
 */
async function realOutputPath(file: FoundFile, cache: Map<string, string>): Promise<string> {
  const dir = file.outputDir;
  let real = cache.get(dir);
  if (real === undefined) {
    real = await realpath(dir).catch(() => dir);
    cache.set(dir, real);
  }
  // A real path is absolute and normalised, and a base name has no separator: no join needed.
  const name = file.outputName;
  return real.endsWith(sep) ? real + name : real + sep + name;
}

/**
 * The plan's entries: the named inputs that gave nothing to send first, then the found files of this
 * shard, each made from its row when it is reached (see found-files.ts). An array of entries is one too.
 */
export interface PlanEntries extends Iterable<PlanEntry> {
  readonly length: number;
}

class PlannedEntries implements PlanEntries {
  constructor(
    private readonly problems: readonly PlanEntry[],
    private readonly files: FoundFiles,
    /** 1 for each row of this shard; undefined when there is no shard. */
    private readonly mine: Uint8Array | undefined,
    readonly length: number,
  ) {}

  *[Symbol.iterator](): Iterator<PlanEntry> {
    yield* this.problems;
    const { files, mine } = this;
    for (let row = 0; row < files.length; row++) if (!mine || mine[row] === 1) yield files.at(row);
  }
}

/** Why a file's output cannot be had: a name or a path too long, or an input it would overwrite. */
async function outputRefusal(
  file: FoundFile,
  realPaths: KeyIndex,
  files: FoundFiles,
  dirCache: Map<string, string>,
  cwd: string,
  temporaryBytes: number,
): Promise<string | undefined> {
  const tooLong = nameTooLong(file.outputRel) ?? pathTooLong(file, temporaryBytes);
  if (tooLong) return tooLong;
  const real = await realOutputPath(file, dirCache);
  const victim = realPaths.find(real);
  if (victim < 0) return undefined;
  const step = 'choose another output folder (-o)';
  if (real === file.realPath)
    return `its output ${file.outputDisplay} would overwrite the input itself; ${step}`;
  const victimPath = files.folderAt(victim).prefix + files.nameAt(victim);
  return `its output ${file.outputDisplay} would overwrite the input ${displayPath(victimPath, cwd)}; ${step}`;
}

/**
 * Maps every input to its output, before anything is sent: a named file to `<out>/<stem>.wav`,
 * files found in a folder or by a glob to their relative path under `<out>`. Two inputs on one
 * output are both rejected, and so is an output that would overwrite an input. The shard filter
 * comes last, so every machine sees the same rejections for the same arguments. The found files stay
 * packed (see found-files.ts): the plan keeps their refusals and which are this shard's, and hands
 * `expanded.realPaths` on to its inputs (see planned-inputs.ts). `ignoresCase` is the output
 * folder's letter case; undefined when it could not be told, then the system's default is taken,
 * and the outputs that differ only in case are counted (Plan.caseUnknown). `stop` (a first
 * interrupt) ends it between two inputs, rejecting with its reason.
 */
export async function buildPlan(
  expanded: ExpandedInputs,
  options: {
    cwd: string;
    outDir: string;
    shard?: Shard | undefined;
    ignoresCase: boolean | undefined;
    stop?: AbortSignal | undefined;
  },
): Promise<Plan> {
  const { stop } = options;
  stop?.throwIfAborted();
  // Unknown, outputs meet by their folded names too, told apart by rejectMeetings.
  const fold = options.ignoresCase ?? true;
  const outDir = resolve(options.cwd, options.outDir);
  const { files, realPaths } = expanded;
  if (!realPaths) throw new Error('these inputs have been planned already');
  expanded.realPaths = undefined;
  const problems: PlanEntry[] = expanded.problems.map((problem) => ({
    input: problem.path,
    realPath: problem.path,
    display: problem.showPath ? displayPath(problem.path, options.cwd) : problem.arg,
    key: problem.arg,
    output: '',
    outputRel: '',
    outputDisplay: '',
    rejected: problem.reason,
  }));
  const places: PlanPlaces = { cwd: options.cwd, outDir };
  for (const folder of files.folders) placeFolder(folder, places);

  const dirCache = new Map<string, string>();
  const outputs = new KeyIndex((row, key) => collisionKey(files.at(row).outputRel, fold) === key);
  outputs.reserve(files.length);
  /** Rows whose outputs meet, by the first row on that output (the usual case has none). */
  const meetings = new Map<number, number[]>();
  const mine = options.shard ? new Uint8Array(files.length) : undefined;
  let mineCount = 0;
  const temporaryBytes = temporaryNameMaxBytes(options.shard);
  const linkedKeys = mine ? linkedShardKeys(files) : undefined;
  for (let row = 0; row < files.length; row++) {
    if (turnDue()) await giveTurn(stop);
    const file = files.at(row);
    const refusal = await outputRefusal(file, realPaths, files, dirCache, options.cwd, temporaryBytes);
    if (refusal) files.reject(row, refusal);
    const met = outputs.add(row, collisionKey(file.outputRel, fold));
    if (met >= 0) {
      const group = meetings.get(met) ?? [met];
      group.push(row);
      meetings.set(met, group);
    }
    const key = (file.hardLink && linkedKeys?.get(file.hardLink.id)) ?? file.key;
    if (mine && inShard(key, options.shard)) {
      mine[row] = 1;
      mineCount++;
    }
  }
  // A conflict is named above any other reason.
  const caseUnknown = rejectMeetings(meetings.values(), files, options.ignoresCase);

  const myProblems = problems.filter((entry) => inShard(entry.key, options.shard));
  const fileCount = mine ? mineCount : files.length;
  const length = myProblems.length + fileCount;
  return {
    outDir,
    entries: new PlannedEntries(myProblems, files, mine, length),
    inputs: new PlannedInputs(files, realPaths),
    outputFolders: new Set(files.folders.map((folder) => folder.placed?.outFolder ?? outDir)),
    otherShards: problems.length + files.length - length,
    duplicates: expanded.duplicates,
    hardLinks: HardLinks.of(
      files,
      (row) => (!mine || mine[row] === 1) && files.rejectedAt(row) === undefined,
    ),
    ...(caseUnknown ? { caseUnknown } : {}),
  };
}
