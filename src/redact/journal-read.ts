/**
 * Reads the journals of an output folder once, streaming, O(lines): later lines (by `at`) win per
 * input. A torn last line (a crash mid-write) and a damaged or oversized line are skipped and counted:
 * no line is ever held whole beyond MAX_LINE_BYTES, so a 700 MB line costs a warning, not the run. A
 * line of a later format stops the read (see journal-line.ts).
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { forEachLine, MAX_LINE_BYTES } from './journal-lines.js';
import { OpenJournals } from './journal-lines-at.js';
import { JOURNAL_FILE, type JournalRecord, STATE_DIR, sameIdentity } from './journal.js';
import { newerFormatError, readLine } from './journal-line.js';
import { type KnownInputs, type RecordStore, WholeRecords } from './record-store.js';
import { RecordTable } from './record-table.js';
import { UploadStreaks } from './upload-streaks.js';

export { forEachLine, MAX_LINE_BYTES } from './journal-lines.js';
export { SettledRecord } from './record-table.js';
export type { InterruptedUpload } from './upload-streaks.js';
export { type RecordStore, WholeRecords } from './record-store.js';

/** One journal file as read: compaction decides from these whether to rewrite it. */
export interface JournalFileCounts {
  path: string;
  lines: number;
  /** Distinct inputs it names. */
  inputs: number;
  /**
   * Its last line has no line feed and could not be read (counted in `unreadable`): torn by a crash,
   * or, while a run holds its lock, a line that run is writing now (status tells them apart).
   */
  tornTail?: true;
}

export interface JournalState {
  /** The last record of each input, by its real path. */
  latest: RecordStore;
  /** The inputs whose last record is `uploading`. */
  interrupted: UploadStreaks;
  lines: number;
  /** Lines that could not be read (a torn last line, damage). */
  unreadable: number;
  /** Lines skipped for their size. */
  oversized: number;
  /** Each file read, in the order read. */
  files: JournalFileCounts[];
  /** The files kept open, for the lines the table reads again (a run's): closed when it is done. */
  open?: OpenJournals;
}

/**
 * A state to read journals into. The store decides what is kept of each record: a RecordTable what a
 * run's decisions need, WholeRecords every field (compaction), status its own (src/status/).
 */
export function emptyJournalState(latest: RecordStore = new RecordTable()): JournalState {
  return {
    latest,
    interrupted: new UploadStreaks(latest),
    lines: 0,
    unreadable: 0,
    oversized: 0,
    files: [],
  };
}

/**
 * Takes back an input's `uploading` line of the same upload name, when it is still its last: that
 * upload never started, so the input's record is again what it was before the line.
 */
function withdraw(state: JournalState, record: JournalRecord, source: number): void {
  const { latest, interrupted } = state;
  const row = latest.rowFor(record.input);
  if (row === undefined || !interrupted.lastUploadIs(row, record.uploadName ?? '')) return;
  const prior = latest.get(record.input) as JournalRecord;
  const popped = interrupted.pop(record.input, row);
  if ('atMs' in popped) {
    // The upload before it in the streak, of the same size, time and options, is the last again: as
    // a run holds an upload (what it carried is on the streak's nodes and in the journal).
    latest.put(uploadAt(prior, popped.atMs), source);
  } else if (popped.before) latest.put(popped.before, source);
  else latest.delete(record.input);
}

function uploadAt(upload: JournalRecord, atMs: number): JournalRecord {
  const { v, event, input, size, mtimeMs, options } = upload;
  return { v, event, at: new Date(atMs).toISOString(), input, size, mtimeMs, options };
}

/**
 * Applies one record. Within one journal the order of the lines decides (a clock may step back);
 * between journals (shards), the later `at` wins.
 */
export function applyRecord(state: JournalState, record: JournalRecord, source = 0): void {
  const { latest, interrupted } = state;
  if (latest.loses(record, source)) return;
  if (record.event === 'withdrawn') {
    withdraw(state, record, source);
    return;
  }
  const row = latest.rowFor(record.input);
  const wasInterrupted = row !== undefined && interrupted.size > 0 && interrupted.has(record.input);
  if (record.event !== 'uploading') {
    if (wasInterrupted) interrupted.end(record.input, row);
    latest.put(record, source);
    return;
  }
  const prior = row === undefined ? undefined : latest.get(record.input);
  latest.put(record, source);
  const continues = wasInterrupted && prior !== undefined && sameIdentity(prior, record);
  interrupted.add(
    record,
    latest.rowFor(record.input) as number,
    continues,
    wasInterrupted ? undefined : prior,
  );
}

/**
 * What a run keeps of a `submitted` record the table cannot pack and holds whole (see job-details.ts):
 * all but the output's SHA-256, its size and the voice (for `status` and compaction). Any other record
 * goes to the table as it is parsed: the table keeps only what the re-run rules need of it.
 */
function slim(record: JournalRecord, latest: RecordStore): JournalRecord {
  if (record.event !== 'submitted') return record;
  if (record.outputSha256 !== undefined || record.voice !== undefined || record.bytes !== undefined) {
    const { outputSha256: _output, voice: _voice, bytes: _bytes, ...kept } = record;
    return { ...kept, options: latest.intern(record.options) };
  }
  // The usual line has none of them: the record was just parsed and is no one else's, so it is kept
  // as it is rather than copied.
  record.options = latest.intern(record.options);
  return record;
}

export interface ReadOptions {
  /** Every field of every record kept (compaction rewrites them): no record is slimmed first. */
  full?: boolean;
  maxLineBytes?: number;
  /** Called with each record before it is applied, and its line's number in its file (from 0). */
  onRecord?: (record: JournalRecord, line: number) => void;
  /** Where the files are kept open once read, and a submitted record's place noted on it. */
  open?: OpenJournals;
  /**
   * A first interrupt: the read ends before its next chunk of lines (over 1,000,000 inputs it takes
   * seconds), rejecting with the signal's reason.
   */
  stop?: AbortSignal | undefined;
}

/**
 * Reads journal files into one state, in the order given; `state.files` lists those read (a missing
 * file, or one that is not a regular file, is passed over). This is the one reader of journals:
 * runs, compaction and `vredact status` apply the same rules to the same lines.
 */
export async function readJournalFiles(
  paths: readonly string[],
  state = emptyJournalState(),
  {
    full = state.latest instanceof WholeRecords,
    maxLineBytes = MAX_LINE_BYTES,
    onRecord,
    open,
    stop,
  }: ReadOptions = {},
): Promise<JournalState> {
  if (open) state.open = open;
  for (const [source, path] of paths.entries()) {
    stop?.throwIfAborted();
    const counts: JournalFileCounts = { path, lines: 0, inputs: 0 };
    const read = await forEachLine(
      path,
      (line, offset, ended) => {
        state.lines++;
        counts.lines++;
        const unreadable = () => {
          state.unreadable++;
          if (!ended) counts.tornTail = true;
        };
        let parsed: unknown;
        try {
          parsed = JSON.parse(line.toString('utf8'));
        } catch {
          unreadable();
          return;
        }
        const reading = readLine(parsed);
        // Lines are counted from 1 for the user, as an editor does.
        if (reading.kind === 'newer') throw newerFormatError(path, counts.lines, reading.format);
        if (reading.kind === 'damaged') {
          unreadable();
          return;
        }
        const { record } = reading;
        onRecord?.(record, counts.lines - 1);
        if (open && record.event === 'submitted') open.markPlace(record, source, offset);
        // A done line's file is kept open only if the table holds its place (done-lines.ts).
        else if (open && record.event === 'done') open.notePlace(record, source, offset);
        applyRecord(state, full ? record : slim(record, state.latest), source);
        if (state.latest.firstNamedIn(record.input, source)) counts.inputs++;
      },
      () => {
        state.lines++;
        counts.lines++;
        state.oversized++;
      },
      maxLineBytes,
      // Each chunk is read with the event loop free: an interrupt heard then ends the read here.
      stop && (async () => stop.throwIfAborted()),
      open && ((handle) => open.add(source, path, handle)),
    );
    await open?.doneReading(source);
    if (read) state.files.push(counts);
  }
  return state;
}

/** Every journal of an output folder (sorted by name), own one included when it exists. */
export async function journalFiles(outDir: string): Promise<string[]> {
  const dir = join(outDir, STATE_DIR);
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  return names
    .filter((name) => JOURNAL_FILE.test(name))
    .sort()
    .map((name) => join(dir, name));
}

/**
 * Reads every journal of the folder: what every run (and every shard) has recorded. A run passes its
 * plan's inputs (`run`): the records are held on their rows, without the notes no decision reads,
 * and the files stay open for the submitted lines it reads again (`state.open`, closed by the run).
 * `stop` ends the read between two chunks of lines, rejecting (the files it kept open closed).
 */
export async function readJournals(
  outDir: string,
  run?: KnownInputs,
  stop?: AbortSignal,
): Promise<JournalState> {
  if (!run) {
    return readJournalFiles(await journalFiles(outDir), emptyJournalState(new RecordTable()), { stop });
  }
  const open = new OpenJournals();
  const table = new RecordTable(run, { notes: false, lines: open });
  try {
    return await readJournalFiles(await journalFiles(outDir), emptyJournalState(table), { open, stop });
  } catch (error) {
    await open.close();
    throw error;
  }
}

/** Reads one journal file whole, every field kept (compaction, tests). */
export async function readJournal(path: string): Promise<JournalState> {
  return readJournalFiles([path], emptyJournalState(new WholeRecords()), { full: true });
}
