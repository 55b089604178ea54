/**
 * Reads the journals of an output folder once, streaming, O(lines): later lines (by `at`) win per
 * input. A torn last line (a crash mid-write) and a damaged or oversized line are skipped and counted:
 * no line is ever held whole beyond MAX_LINE_BYTES, so a 700 MB line costs a warning, not the run.
 */
import { type FileHandle, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { JOURNAL_FILE, type JournalEvent, type JournalRecord, STATE_DIR, sameIdentity } from './journal.js';

/** A journal line is a few hundred bytes; anything past this is damage. */
export const MAX_LINE_BYTES = 1024 * 1024;
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

export interface JournalState {
  /** The last record of each input, by its real path. */
  latest: Map<string, JournalRecord>;
  /** The inputs whose last record is `uploading`. */
  interrupted: Map<string, InterruptedUpload>;
  /** Every job id the journals name: those jobs belong to known inputs. */
  jobIds: Set<string>;
  lines: number;
  /** Lines that could not be read (a torn last line, damage). */
  unreadable: number;
  /** Lines skipped for their size. */
  oversized: number;
  /** Each file read, in the order read. */
  files: JournalFileCounts[];
}

export function emptyJournalState(): JournalState {
  return {
    latest: new Map(),
    interrupted: new Map(),
    jobIds: new Set(),
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
function withdraw(state: JournalState, record: JournalRecord): void {
  const prior = state.latest.get(record.input);
  if (prior?.event !== 'uploading' || prior.uploadName !== record.uploadName) return;
  const interrupted = state.interrupted.get(record.input);
  const rest = interrupted ? interrupted.streak.slice(0, -1) : [];
  const last = rest.at(-1);
  if (interrupted && last) {
    const sinceMs = Math.min(...rest.map((line) => Date.parse(line.at)));
    state.interrupted.set(record.input, { ...interrupted, sinceMs, streak: rest });
    state.latest.set(record.input, last);
    return;
  }
  state.interrupted.delete(record.input);
  if (interrupted?.before) state.latest.set(record.input, interrupted.before);
  else state.latest.delete(record.input);
}

/** Which journal file a record came from (not written back: a symbol key is not serialised). */
const SOURCE = Symbol('journal file');
type Sourced = JournalRecord & { [SOURCE]?: number };

/**
 * Applies one record. Within one journal the order of the lines decides (a clock may step back);
 * between journals (shards), the later `at` wins.
 */
export function applyRecord(state: JournalState, record: Sourced, source = 0): void {
  const prior = state.latest.get(record.input) as Sourced | undefined;
  if (prior && prior[SOURCE] !== source && prior.at > record.at) return;
  if (record.event === 'withdrawn') {
    withdraw(state, record);
    return;
  }
  record[SOURCE] = source;
  if (record.event === 'uploading') {
    const streak = prior?.event === 'uploading' ? state.interrupted.get(record.input) : undefined;
    const startedMs = Date.parse(record.at);
    const continues = streak !== undefined && prior !== undefined && sameIdentity(prior, record);
    state.interrupted.set(record.input, {
      sinceMs: continues ? Math.min(streak.sinceMs, startedMs) : startedMs,
      streak: continues ? [...streak.streak, record].slice(-MAX_STREAK) : [record],
      before: prior?.event === 'uploading' ? streak?.before : prior,
    });
  } else {
    state.interrupted.delete(record.input);
  }
  if (typeof record.jobId === 'string' && record.jobId !== '') state.jobIds.add(record.jobId);
  state.latest.set(record.input, record);
}

/** Bytes read from a journal at a time, into one buffer kept for the whole file. */
const READ_BYTES = 256 * 1024;

/**
 * Calls `onLine` with each line of a file (as bytes, valid only during the call: they may lie in a
 * buffer that is read into again), skipping lines over `maxBytes` without holding them. One buffer
 * serves the whole file: a stream allocates one per chunk, and a 70 MB journal's worth of freed
 * chunks stayed in the process's memory (about 40 MB more peak RSS at 100,000 inputs).
 */
export async function forEachLine(
  path: string,
  onLine: (line: Buffer) => void,
  onOversized: () => void,
  maxBytes = MAX_LINE_BYTES,
): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  const buffer = Buffer.allocUnsafeSlow(READ_BYTES);
  let parts: Buffer[] = [];
  let length = 0;
  let skipping = false;
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      let start = 0;
      for (;;) {
        const end = chunk.indexOf(0x0a, start);
        const piece = chunk.subarray(start, end < 0 ? chunk.length : end);
        if (!skipping) {
          if (length + piece.length > maxBytes) {
            skipping = true;
            parts = [];
            length = 0;
          } else if (piece.length > 0) {
            parts.push(piece);
            length += piece.length;
          }
        }
        if (end < 0) break;
        if (skipping) onOversized();
        else if (length > 0) onLine(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, length));
        parts = [];
        length = 0;
        skipping = false;
        start = end + 1;
      }
      // A piece left over lies in the buffer, which the next read overwrites: it is copied.
      if (parts.length > 0) parts = [Buffer.concat(parts, length)];
    }
  } finally {
    await handle.close();
  }
  if (skipping) onOversized();
  else if (length > 0) onLine(Buffer.concat(parts, length));
  return true;
}

/**
 * What a run keeps of a done, failed or rejected record: what the re-run rules compare, the job id
 * (never given to another input) and the reason (a rejection is journaled once while it stays the
 * same). A re-run over 100,000 done files holds 100,000 of these: a class, so that each is a fixed
 * shape of eight fields, with no version field of its own.
 */
export class SettledRecord implements JournalRecord {
  /** Set by applyRecord; a field of the class, so that setting it does not change the object's shape. */
  [SOURCE]: number | undefined = undefined;

  constructor(
    readonly event: JournalEvent,
    readonly at: string,
    readonly input: string,
    readonly size: number,
    readonly mtimeMs: number,
    readonly options: string,
    readonly jobId: string | undefined,
    readonly reason: string | undefined,
  ) {}

  get v(): 1 {
    return 1;
  }
}

/**
 * What a run needs of a record to decide (the rest, SHA-256s of outputs, voices, is for `status` and
 * compaction). The fingerprint and the event are the same few strings on every line: each is held once.
 */
function slim(record: JournalRecord, strings: Map<string, string>): JournalRecord {
  const intern = (text: string) => {
    const known = strings.get(text);
    if (known !== undefined) return known;
    strings.set(text, text);
    return text;
  };
  if (record.event === 'uploading' || record.event === 'submitted' || record.event === 'withdrawn') {
    const { outputSha256: _output, voice: _voice, bytes: _bytes, ...kept } = record;
    return { ...kept, options: intern(record.options) };
  }
  return new SettledRecord(
    intern(record.event) as JournalEvent,
    record.at,
    record.input,
    record.size,
    record.mtimeMs,
    intern(record.options),
    record.jobId,
    record.reason,
  );
}

/**
 * Reads journal files into one state, in the order given. A missing file is an empty one. `full`
 * keeps every field (compaction rewrites them); a run keeps what its decisions need.
 */
export async function readJournalFiles(
  paths: readonly string[],
  state = emptyJournalState(),
  full = false,
): Promise<JournalState> {
  const strings = new Map<string, string>();
  for (const [source, path] of paths.entries()) {
    const counts: JournalFileCounts = { path, lines: 0, inputs: 0 };
    // Its inputs, to count them: the same strings as the records', so it costs a reference each.
    const inputs = new Set<string>();
    await forEachLine(
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
        inputs.add(parsed.input);
        applyRecord(state, full ? parsed : slim(parsed, strings), source);
      },
      () => {
        state.lines++;
        counts.lines++;
        state.oversized++;
      },
    );
    counts.inputs = inputs.size;
    state.files.push(counts);
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

/** Reads every journal of the folder: what every run (and every shard) has recorded. */
export async function readJournals(outDir: string): Promise<JournalState> {
  return readJournalFiles(await journalFiles(outDir));
}

/** Reads one journal file whole, every field kept (compaction, tests). */
export async function readJournal(path: string): Promise<JournalState> {
  return readJournalFiles([path], emptyJournalState(), true);
}
