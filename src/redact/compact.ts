/**
 * Journal compaction. A journal is append only, so re-runs make it grow with the history of the
 * archive rather than its size. When a journal has more than twice as many lines as inputs plus a
 * thousand, a run rewrites it (under its lock, before it appends anything) as one line per input: the
 * latest, or for an interrupted upload the record before it and the `uploading` lines of its streak,
 * which recovery needs; and, where the latest is not done, the latest done line before it, whose
 * output still stands (the manifest lists it). Two passes over the file: the first applies every line by the readers' rules
 * to a table of records (on the plan's rows, see record-table.ts) that notes the line each record
 * came from; the second copies the lines kept, byte for byte and in their order. Holding every
 * record whole instead took 1.3 GB over 1,000,000 inputs. Written to a temporary file, flushed,
 * renamed over the journal: a crash leaves the old journal or the new one, never a mix, and a partial
 * file that the next run sweeps. The rename is made durable by a flush of the journal's folder
 * (folder-flush.ts) before the run appends to the new journal or sends anything.
 */
import { type FileHandle, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { temporaryNameFor } from '../fs/atomic-write.js';
import { folderFlushes } from '../fs/folder-flush.js';
import { asLocalFsError } from '../fs/errors.js';
import { Uint32Column, Uint8Column } from './chunked-columns.js';
import { giveTurn, turnDue } from './event-turn.js';
import type { JournalRecord } from './journal.js';
import {
  emptyJournalState,
  forEachLine,
  type JournalFileCounts,
  type JournalState,
  readJournalFiles,
  readJournals,
} from './journal-read.js';
import { type KnownInputs, RecordTable } from './record-table.js';
import { settleHeap } from './settle-heap.js';
import { noPause, type Pause } from './test-pause.js';

/** Lines worth keeping no matter what: below this, compaction would save nothing that matters. */
export const COMPACT_SLACK_LINES = 1000;

/** Kept lines are written out once this many bytes of them are copied. */
const WRITE_BYTES = 1024 * 1024;
const NEWLINE = Buffer.from('\n');

export function needsCompaction(lines: number, inputs: number): boolean {
  return lines > 2 * inputs + COMPACT_SLACK_LINES;
}

export interface CompactResult {
  before: number;
  after: number;
}

/** The line a record was read from, on the record itself: only the records still held keep it. */
const LINE = Symbol('line');
type Lined = JournalRecord & { [LINE]?: number };

/** The first pass's table: each input's record and the line of the journal it came from. */
class LineTable extends RecordTable {
  /** Each row's record's line + 1. */
  readonly #line = new Uint32Column();
  /**
   * Each row's latest done record's line + 1: while a later record is not done (a redo that failed,
   * an input rejected since), that record's output still stands, and status lists it as such (see
   * status/earlier-output.ts).
   */
  readonly #doneLine = new Uint32Column();

  readonly #known: KnownInputs | undefined;

  constructor(known: KnownInputs | undefined) {
    // The lines are copied as they are: no note of a record is needed.
    super(known, { notes: false, jobs: false });
    this.#known = known;
  }

  static mark(record: JournalRecord, line: number): void {
    (record as Lined)[LINE] = line;
  }

  /** A table on the same inputs: the records before upload streaks, with their lines. */
  override emptyLike(): LineTable {
    return new LineTable(this.#known);
  }

  /**
   * An upload given back as the last record (the one after it withdrawn) has no line of its own here:
   * the lines of an interrupted input's uploads are on its streak.
   */
  override put(record: JournalRecord, source: number): void {
    super.put(record, source);
    const line = (record as Lined)[LINE];
    const row = this.rowFor(record.input) as number;
    this.#line.set(row, line === undefined ? 0 : line + 1);
    if (record.event === 'done') this.#doneLine.set(row, line === undefined ? 0 : line + 1);
  }

  lineOf(record: JournalRecord): number {
    return LineTable.lineOf(record);
  }

  /** A record given back may be put back later (an upload withdrawn): it keeps its line. */
  override getFor(input: string, knownRow: number | undefined): JournalRecord | undefined {
    const record = super.getFor(input, knownRow);
    if (record) LineTable.mark(record, this.#line.get(this.rowFor(input, knownRow) as number) - 1);
    return record;
  }

  lineAt(input: string): number {
    return this.#line.get(this.rowFor(input) as number) - 1;
  }

  /** The line of the input's latest done record; -1 when it has none. */
  doneLineAt(input: string): number {
    return this.#doneLine.get(this.rowFor(input) as number) - 1;
  }

  static lineOf(record: JournalRecord): number {
    const line = (record as Lined)[LINE];
    if (line === undefined) throw new Error('compaction met a record of no line');
    return line;
  }
}

/** The first pass: the lines to keep, or undefined when the file needs no compaction. */
async function linesToKeep(path: string, known: KnownInputs | undefined, stop: AbortSignal | undefined) {
  const table = new LineTable(known);
  const state = await readJournalFiles([path], emptyJournalState(table), {
    full: true,
    onRecord: (record, line) => LineTable.mark(record, line),
    stop,
  });
  if (!needsCompaction(state.lines, state.latest.size)) return undefined;
  const keep = new Uint8Column();
  let kept = 0;
  const mark = (line: number) => {
    if (keep.get(line) === 0) kept++;
    keep.set(line, 1);
  };
  const streaks = state.interrupted;
  for (const input of table.keys()) {
    if (turnDue()) await giveTurn(stop);
    const row = table.rowFor(input) as number;
    const done = table.doneLineAt(input);
    if (done >= 0) mark(done);
    if (!streaks.has(input)) {
      mark(table.lineAt(input));
      continue;
    }
    const before = streaks.beforeOf(input);
    if (before) mark(LineTable.lineOf(before));
    for (const line of streaks.linesOf(row)) mark(line);
  }
  return { lines: state.lines, keep, kept };
}

/**
 * The second pass: copies the kept lines of `path` to `handle`, checking the file is the one read.
 * `stop` ends it between two chunks, rejecting: the copy is then a partial file, never put in place.
 */
export async function copyKeptLines(
  path: string,
  handle: FileHandle,
  { lines, keep }: { lines: number; keep: Uint8Column },
  stop?: AbortSignal,
): Promise<void> {
  let line = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    if (pending.length > 0) await handle.writev(pending);
    pending = [];
    pendingBytes = 0;
  };
  await forEachLine(
    path,
    (bytes) => {
      // The bytes lie in a buffer that the next read overwrites: copied.
      if (keep.get(line++) === 1) {
        pending.push(Buffer.from(bytes), NEWLINE);
        pendingBytes += bytes.length + 1;
      }
    },
    () => line++,
    undefined,
    async () => {
      if (pendingBytes >= WRITE_BYTES) await flush();
      stop?.throwIfAborted();
    },
  );
  await flush();
  // Under the lock nothing else writes this journal; a different count means it is not the file read.
  if (line !== lines) {
    throw new Error(
      `the journal ${path} changed while it was compacted (${lines} lines, then ${line}); it was left as it was: is something else writing it?`,
    );
  }
}

export interface CompactOptions {
  /**
   * The file as a read of the journals found it (its lines and inputs): when it needs no compaction
   * the file is not read again.
   */
  counted?: Pick<JournalFileCounts, 'lines' | 'inputs'> | undefined;
  /** The run's inputs, whose rows the first pass uses. */
  known?: KnownInputs | undefined;
  /** Awaited before the copy is put in place; when it rejects, the journal is left as it is. */
  beforeRename?: (() => Promise<void>) | undefined;
  /**
   * A first interrupt: the compaction ends between two chunks of lines (over 1,000,000 inputs each
   * pass takes seconds), or before its rename, rejecting: the journal is left as it was, the copy removed.
   */
  stop?: AbortSignal | undefined;
  /** Tests only: where a run is held (see test-pause.ts). */
  pause?: Pause | undefined;
}

/** Compacts one journal file if it has grown well past one line per input; undefined when left as it is. */
export async function compactJournal(
  path: string,
  { counted, known, beforeRename, stop, pause = noPause }: CompactOptions = {},
): Promise<CompactResult | undefined> {
  if (counted && !needsCompaction(counted.lines, counted.inputs)) return undefined;
  const kept = await linesToKeep(path, known, stop);
  if (!kept) return undefined;
  // The first pass's table is garbage now, in columns outside V8's heap that only a collection frees:
  // over 1,000,000 inputs it was still held when the run read the compacted journal, the run's peak.
  settleHeap(kept.kept);
  // A partial file's name, so that a run killed here (the OOM killer: this is a run's peak) leaves a
  // file the next run's sweep of `.vredact/` removes, not one that stays for good.
  const temp = temporaryNameFor(path);
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await pause('compaction');
      await copyKeptLines(path, handle, kept, stop);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // A whole copy is put in place only by a run that goes on: an interrupted one leaves the journal.
    stop?.throwIfAborted();
    // A run whose lock was taken over while it compacted must not put its copy over the journal
    // that is another run's now.
    await beforeRename?.();
    await rename(temp, path);
    // A rename lost to a power loss brings the old journal back: harmless on its own, but the lines
    // appended to the new one since would go with it.
    await folderFlushes.flushed(dirname(path));
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw asLocalFsError(error, path, 'compacting the journal');
  }
  return { before: kept.lines, after: kept.kept };
}

/**
 * The journals of `outDir` as a run reads them, its own journal (`own`) compacted first when it
 * needs it. The first read is let go before the compaction reads the file again: over 1,000,000
 * inputs, holding both would be the peak of the run.
 */
export async function readJournalsCompacting(
  outDir: string,
  own: string,
  info: (message: string) => void,
  { known, beforeRename, stop, pause }: Omit<CompactOptions, 'counted'> = {},
): Promise<JournalState> {
  let journal: JournalState | undefined = await readJournals(outDir, known, stop);
  const counted = journal.files.find((file) => file.path === own);
  if (!counted || !needsCompaction(counted.lines, counted.inputs)) return journal;
  await journal.open?.close();
  journal = undefined;
  settleHeap(counted.inputs);
  const compacted = await compactJournal(own, { counted, known, beforeRename, stop, pause });
  if (compacted) info(`compacted the journal: ${compacted.before} lines → ${compacted.after}`);
  return readJournals(outDir, known, stop);
}
