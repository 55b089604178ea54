/**
 * Reads the journals of an output folder once, streaming, O(lines): later lines (by `at`) win per
 * input. A torn last line (a crash mid-write) and a damaged or oversized line are skipped and counted:
 * no line is ever held whole beyond MAX_LINE_BYTES, so a 700 MB line costs a warning, not the run.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { forEachLine, MAX_LINE_BYTES } from './journal-lines.js';
import { JOURNAL_FILE, type JournalRecord, STATE_DIR, sameIdentity } from './journal.js';
import { type KnownInputs, RecordTable, type RecordsByInput } from './record-table.js';

export { forEachLine, MAX_LINE_BYTES } from './journal-lines.js';
export { SettledRecord } from './record-table.js';

/** Upload names kept per interrupted input: a streak longer than this is a loop, not history. */
const MAX_STREAK = 20;

/** An input whose last record is `uploading`: an upload was cut short, its result unknown. */
export interface InterruptedUpload {
  /** When the first of its uploads in a row (same size, time and options) started (ms since the epoch). */
  sinceMs: number;
  /** The `uploading` records of that streak, oldest first: any of their upload names may be a job. */
  streak: JournalRecord[];
  /** Its last record before those uploads, if any: what a re-run does when no job of them is found. */
  before: JournalRecord | undefined;
}

/** One journal file as read: compaction decides from these whether to rewrite it. */
export interface JournalFileCounts {
  path: string;
  lines: number;
  /** Distinct inputs it names. */
  inputs: number;
}

/** How a state holds its last records: compared and replaced as lines are read. */
export interface RecordStore extends RecordsByInput {
  /** Whether `record`, read from journal file `source`, loses to the one held for its input. */
  loses(record: JournalRecord, source: number): boolean;
  put(record: JournalRecord, source: number): void;
  /** Forgets an input's record (its only line was an upload withdrawn since). */
  delete(input: string): boolean;
  /** The one string held for a fingerprint. */
  intern(options: string): string;
  /** Notes, once its record is applied, that file `source` names `input`: true the first time. */
  firstNamedIn(input: string, source: number): boolean;
  /** The record of `input`, given its row of the inputs the store was built on, if any (see RecordTable). */
  getFor(input: string, knownRow: number | undefined): JournalRecord | undefined;
}

export interface JournalState {
  /** The last record of each input, by its real path. */
  latest: RecordStore;
  /** The inputs whose last record is `uploading`. */
  interrupted: Map<string, InterruptedUpload>;
  lines: number;
  /** Lines that could not be read (a torn last line, damage). */
  unreadable: number;
  /** Lines skipped for their size. */
  oversized: number;
  /** Each file read, in the order read. */
  files: JournalFileCounts[];
}

/**
 * Every record kept whole, every field (compaction rewrites them): within one file the later line
 * wins, between files the later `at`.
 */
export class WholeRecords extends Map<string, JournalRecord> implements RecordStore {
  readonly #sources = new Map<string, number>();
  readonly #namedIn = new Map<string, number>();

  loses(record: JournalRecord, source: number): boolean {
    const prior = this.get(record.input);
    return prior !== undefined && this.#sources.get(record.input) !== source && prior.at > record.at;
  }

  put(record: JournalRecord, source: number): void {
    this.#sources.set(record.input, source);
    this.set(record.input, record);
  }

  override delete(input: string): boolean {
    this.#sources.delete(input);
    return super.delete(input);
  }

  intern(options: string): string {
    return options;
  }

  getFor(input: string): JournalRecord | undefined {
    return this.get(input);
  }

  firstNamedIn(input: string, source: number): boolean {
    if (this.#namedIn.get(input) === source) return false;
    this.#namedIn.set(input, source);
    return true;
  }
}

/**
 * A state to read journals into. The store decides what is kept of each record: a RecordTable what a
 * run's decisions need, WholeRecords every field (compaction), status its own (src/status/).
 */
export function emptyJournalState(latest: RecordStore = new RecordTable()): JournalState {
  return {
    latest,
    interrupted: new Map(),
    lines: 0,
    unreadable: 0,
    oversized: 0,
    files: [],
  };
}

function isRecord(value: unknown): value is JournalRecord {
  if (!value || typeof value !== 'object') return false;
  const record = value as Partial<JournalRecord>;
  return (
    typeof record.input === 'string' &&
    typeof record.event === 'string' &&
    typeof record.at === 'string' &&
    typeof record.size === 'number' &&
    typeof record.mtimeMs === 'number' &&
    typeof record.options === 'string' &&
    // An `uploading` line is of use only with its start time and upload name; a `withdrawn` one names it too.
    (record.event !== 'uploading' ||
      (typeof record.uploadName === 'string' &&
        record.uploadName !== '' &&
        Number.isFinite(Date.parse(record.at)))) &&
    (record.event !== 'withdrawn' || typeof record.uploadName === 'string')
  );
}

/**
 * Takes back an input's `uploading` line of the same upload name, when it is still its last: that
 * upload never started, so the input's record is again what it was before the line.
 */
function withdraw(state: JournalState, record: JournalRecord, source: number): void {
  const prior = state.latest.get(record.input);
  if (prior?.event !== 'uploading' || prior.uploadName !== record.uploadName) return;
  const interrupted = state.interrupted.get(record.input);
  const rest = interrupted ? interrupted.streak.slice(0, -1) : [];
  const last = rest.at(-1);
  if (interrupted && last) {
    const sinceMs = Math.min(...rest.map((line) => Date.parse(line.at)));
    state.interrupted.set(record.input, { ...interrupted, sinceMs, streak: rest });
    state.latest.put(last, source);
    return;
  }
  state.interrupted.delete(record.input);
  if (interrupted?.before) state.latest.put(interrupted.before, source);
  else state.latest.delete(record.input);
}

/**
 * Applies one record. Within one journal the order of the lines decides (a clock may step back);
 * between journals (shards), the later `at` wins.
 */
export function applyRecord(state: JournalState, record: JournalRecord, source = 0): void {
  if (state.latest.loses(record, source)) return;
  if (record.event === 'withdrawn') {
    withdraw(state, record, source);
    return;
  }
  if (record.event === 'uploading') {
    const prior = state.latest.get(record.input);
    const streak = prior?.event === 'uploading' ? state.interrupted.get(record.input) : undefined;
    const startedMs = Date.parse(record.at);
    const continues = streak !== undefined && prior !== undefined && sameIdentity(prior, record);
    state.interrupted.set(record.input, {
      sinceMs: continues ? Math.min(streak.sinceMs, startedMs) : startedMs,
      streak: continues ? [...streak.streak, record].slice(-MAX_STREAK) : [record],
      before: prior?.event === 'uploading' ? streak?.before : prior,
    });
  } else if (state.interrupted.size > 0) {
    state.interrupted.delete(record.input);
  }
  state.latest.put(record, source);
}

/**
 * What a run keeps of an `uploading` or `submitted` record: all but the output's SHA-256, its size
 * and the voice (for `status` and compaction). A done, failed or rejected record goes to the table
 * as it is parsed: the table keeps only what the re-run rules need of it.
 */
function slim(record: JournalRecord, latest: RecordStore): JournalRecord {
  if (record.event !== 'uploading' && record.event !== 'submitted') return record;
  if (record.outputSha256 !== undefined || record.voice !== undefined || record.bytes !== undefined) {
    const { outputSha256: _output, voice: _voice, bytes: _bytes, ...kept } = record;
    return { ...kept, options: latest.intern(record.options) };
  }
  // The usual line has none of them: the record was just parsed and is no one else's, so it is kept
  // as it is rather than copied (a copy of every `uploading` line was a twentieth of reading a journal).
  record.options = latest.intern(record.options);
  return record;
}

export interface ReadOptions {
  /** Every field of every record kept (compaction rewrites them): no record is slimmed first. */
  full?: boolean;
  maxLineBytes?: number;
  /** Called with each record before it is applied, and its line's number in its file (from 0). */
  onRecord?: (record: JournalRecord, line: number) => void;
}

/**
 * Reads journal files into one state, in the order given; `state.files` lists those read (a missing
 * file, or one that is not a regular file, is passed over). This is the one reader of journals:
 * runs, compaction and `vredact status` apply the same rules to the same lines.
 */
export async function readJournalFiles(
  paths: readonly string[],
  state = emptyJournalState(),
  { full = state.latest instanceof WholeRecords, maxLineBytes = MAX_LINE_BYTES, onRecord }: ReadOptions = {},
): Promise<JournalState> {
  for (const [source, path] of paths.entries()) {
    const counts: JournalFileCounts = { path, lines: 0, inputs: 0 };
    const read = await forEachLine(
      path,
      (line) => {
        state.lines++;
        counts.lines++;
        let parsed: unknown;
        try {
          parsed = JSON.parse(line.toString('utf8'));
        } catch {
          state.unreadable++;
          return;
        }
        if (!isRecord(parsed)) {
          state.unreadable++;
          return;
        }
        onRecord?.(parsed, counts.lines - 1);
        applyRecord(state, full ? parsed : slim(parsed, state.latest), source);
        if (state.latest.firstNamedIn(parsed.input, source)) counts.inputs++;
      },
      () => {
        state.lines++;
        counts.lines++;
        state.oversized++;
      },
      maxLineBytes,
    );
    if (read) state.files.push(counts);
  }
  return state;
}

/**
 * Which of `among` the journal files name: those jobs belong to known inputs, so the look-up of
 * interrupted uploads passes them over. Read again only when there are interrupted uploads, and
 * bounded by the jobs asked about: every job id the journals name, held through every run, was
 * 100 MB over 1,000,000 inputs whose results came from jobs.
 */
export async function jobIdsNamed(
  paths: readonly string[],
  among: ReadonlySet<string>,
): Promise<Set<string>> {
  const named = new Set<string>();
  if (among.size === 0) return named;
  for (const path of paths) {
    await forEachLine(
      path,
      (line) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(line.toString('utf8'));
        } catch {
          return;
        }
        if (!isRecord(parsed) || parsed.event === 'withdrawn') return;
        const { jobId } = parsed;
        if (typeof jobId === 'string' && among.has(jobId)) named.add(jobId);
      },
      () => {},
    );
  }
  return named;
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
 * plan's inputs (`run`): the records are held on their rows, without the notes no decision reads.
 */
export async function readJournals(outDir: string, run?: KnownInputs): Promise<JournalState> {
  const table = run ? new RecordTable(run, { notes: false }) : new RecordTable();
  return readJournalFiles(await journalFiles(outDir), emptyJournalState(table));
}

/** Reads one journal file whole, every field kept (compaction, tests). */
export async function readJournal(path: string): Promise<JournalState> {
  return readJournalFiles([path], emptyJournalState(new WholeRecords()), { full: true });
}
