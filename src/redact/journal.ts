/**
 * The journal: `<out-dir>/.vredact/journal.jsonl`, append only, one JSON object per line and per
 * state change of an input. A run reads it once (streaming, O(lines)); later lines win. A torn last
 * line (a crash mid-write) is ignored, and the next run starts its first line on a fresh line.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, mkdir, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

export const STATE_DIR = '.vredact';
export const JOURNAL_NAME = 'journal.jsonl';

export type JournalEvent = 'uploading' | 'submitted' | 'done' | 'failed' | 'rejected';

export interface JournalRecord {
  /** Format version. */
  v: 1;
  event: JournalEvent;
  /** When this line was written (ISO 8601). */
  at: string;
  /** Absolute real path of the input. */
  input: string;
  size: number;
  mtimeMs: number;
  /** Fingerprint of the target-voice fields sent with it. */
  options: string;
  /** The output, relative to the output folder, `/`-separated. */
  output?: string;
  /** submitted (and done via a job): the asynchronous job. */
  jobId?: string;
  /**
   * uploading, submitted: the file name the upload carried, to tell the result from the input in the
   * job's content, and to find the job of an interrupted upload.
   */
  uploadName?: string;
  /** uploading: the duration found by the local checks, in seconds (tells same-named uploads apart). */
  durationSec?: number;
  /** submitted: the job was found among the service's jobs after an interrupted upload. */
  reconciled?: boolean;
  /** done: `sync` (the answer was the audio) or `job` (collected from an asynchronous job). */
  via?: 'sync' | 'job';
  bytes?: number;
  /** failed, rejected: why. */
  reason?: string;
}

export function journalPath(outDir: string): string {
  return join(outDir, STATE_DIR, JOURNAL_NAME);
}

/** A short, stable hash of the form fields: a change of target voice means the output must be redone. */
export function optionsFingerprint(fields: Readonly<Record<string, string>>): string {
  const canonical = JSON.stringify(
    Object.keys(fields)
      .sort()
      .map((key) => [key, fields[key]]),
  );
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}

/** An input whose last record is `uploading`: an upload was cut short, its result unknown. */
export interface InterruptedUpload {
  /**
   * When the first of its uploads in a row (same size, time and options) started, in ms since the
   * epoch: any of them may have become a job.
   */
  sinceMs: number;
  /** Its last record before those uploads, if any: what a re-run does when no job of them is found. */
  before: JournalRecord | undefined;
}

export interface JournalState {
  /** The last record of each input, by its real path. */
  latest: Map<string, JournalRecord>;
  /** The inputs whose last record is `uploading`. */
  interrupted: Map<string, InterruptedUpload>;
  /** Every job id the journal names: those jobs belong to known inputs. */
  jobIds: Set<string>;
  lines: number;
  /** Lines that could not be read (a torn last line, or damage). */
  unreadable: number;
}

function isRecord(value: unknown): value is JournalRecord {
  if (!value || typeof value !== 'object') return false;
  const record = value as Partial<JournalRecord>;
  return (
    typeof record.input === 'string' &&
    typeof record.event === 'string' &&
    typeof record.size === 'number' &&
    typeof record.mtimeMs === 'number' &&
    typeof record.options === 'string' &&
    // An `uploading` line is of use only with its start time and upload name.
    (record.event !== 'uploading' ||
      (typeof record.uploadName === 'string' &&
        record.uploadName !== '' &&
        Number.isFinite(Date.parse(record.at ?? ''))))
  );
}

function sameIdentity(a: JournalRecord, b: JournalRecord): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.options === b.options;
}

/** Keeps `state.interrupted` in step with a record about to become the input's latest. */
function noteUploads(state: JournalState, record: JournalRecord): void {
  if (record.event !== 'uploading') {
    state.interrupted.delete(record.input);
    return;
  }
  const prior = state.latest.get(record.input);
  const streak = prior?.event === 'uploading' ? state.interrupted.get(record.input) : undefined;
  const startedMs = Date.parse(record.at);
  state.interrupted.set(record.input, {
    sinceMs: streak && prior && sameIdentity(prior, record) ? Math.min(streak.sinceMs, startedMs) : startedMs,
    before: prior?.event === 'uploading' ? streak?.before : prior,
  });
}

/** Reads the journal once, line by line. A missing journal is an empty one. */
export async function readJournal(path: string): Promise<JournalState> {
  const state: JournalState = {
    latest: new Map(),
    interrupted: new Map(),
    jobIds: new Set(),
    lines: 0,
    unreadable: 0,
  };
  const stream = createReadStream(path, { encoding: 'utf8' });
  const opened = new Promise<boolean>((resolve, reject) => {
    stream.once('open', () => resolve(true));
    stream.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' ? resolve(false) : reject(error),
    );
  });
  if (!(await opened)) return state;
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    state.lines++;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      state.unreadable++;
      continue;
    }
    if (!isRecord(parsed)) {
      state.unreadable++;
      continue;
    }
    noteUploads(state, parsed);
    if (typeof parsed.jobId === 'string' && parsed.jobId !== '') state.jobIds.add(parsed.jobId);
    state.latest.set(parsed.input, parsed);
  }
  return state;
}

export type SkipDecision = { action: 'skip'; why: 'done' | 'output-exists' };
export type CollectDecision = { action: 'collect'; jobId: string; uploadName: string };
export type SendDecision = {
  action: 'send';
  why: 'new' | 'changed' | 'retry' | 'output-missing' | 'overwrite';
};
/**
 * An upload of this very file was cut short: look for its job among the service's jobs first;
 * `otherwise` is what to do when none is found (the decision its earlier record gives).
 */
export type ReconcileDecision = {
  action: 'reconcile';
  uploadName: string;
  sinceMs: number;
  durationSec?: number | undefined;
  otherwise: SkipDecision | SendDecision;
};

/** What a run does with one input, given its last journal record. */
export type Decision = SkipDecision | CollectDecision | SendDecision | ReconcileDecision;

export interface DecideInput {
  record: JournalRecord | undefined;
  /** Set when `record` is an `uploading` one (see JournalState.interrupted). */
  interrupted?: InterruptedUpload | undefined;
  size: number;
  mtimeMs: number;
  options: string;
  outputExists: boolean;
  overwrite: boolean;
}

/**
 * The re-run rules. Done with the same size, modification time and options, and the output still
 * there: skip (unless --overwrite). Submitted with the same: collect the job, never upload again.
 * Failed or rejected: try again. An output that exists with no record of this input at all is not
 * overwritten without --overwrite (vredact cannot vouch for it; it may be the output of a run that
 * crashed between writing it and journaling it). Uploading with the same (an upload cut short, its
 * result unknown): reconcile, i.e. look for its job first (even with --overwrite: a job of this very
 * file is its redaction), and otherwise do what the record before the upload says.
 */
export function decide(input: DecideInput): Decision {
  const { record } = input;
  const same =
    record !== undefined &&
    record.size === input.size &&
    record.mtimeMs === input.mtimeMs &&
    record.options === input.options;
  if (record && same && record.event === 'submitted' && record.jobId) {
    return { action: 'collect', jobId: record.jobId, uploadName: record.uploadName ?? '' };
  }
  if (record && same && record.event === 'uploading' && record.uploadName) {
    const otherwise = decide({ ...input, record: input.interrupted?.before, interrupted: undefined });
    // Cannot happen (a submitted file is collected, never uploaded), but a known job wins anyway.
    if (otherwise.action === 'collect' || otherwise.action === 'reconcile') return otherwise;
    return {
      action: 'reconcile',
      uploadName: record.uploadName,
      sinceMs: input.interrupted?.sinceMs ?? Date.parse(record.at),
      durationSec: record.durationSec,
      otherwise,
    };
  }
  if (input.overwrite) return { action: 'send', why: 'overwrite' };
  if (record && same && record.event === 'done') {
    return input.outputExists ? { action: 'skip', why: 'done' } : { action: 'send', why: 'output-missing' };
  }
  if (!record)
    return input.outputExists ? { action: 'skip', why: 'output-exists' } : { action: 'send', why: 'new' };
  if (!same) return { action: 'send', why: 'changed' };
  return { action: 'send', why: 'retry' };
}

/**
 * Appends records. Writes are queued in order on one file handle; `uploading` and `submitted` lines
 * are flushed to disk (fdatasync) before the caller goes on, so neither an upload under way nor a
 * job id is lost to a crash.
 */
export class JournalWriter {
  #queue: Promise<void> = Promise.resolve();
  #failure: unknown;

  private constructor(private readonly handle: FileHandle) {}

  static async open(path: string): Promise<JournalWriter> {
    await mkdir(dirname(path), { recursive: true });
    const handle = await open(path, 'a+');
    const { size } = await handle.stat();
    const writer = new JournalWriter(handle);
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      // A torn last line from a crash: start on a fresh line so the next record stays readable.
      if (last[0] !== 0x0a) await handle.appendFile('\n');
    }
    return writer;
  }

  /** Appends one line; with `durable`, resolves only once it is on disk. */
  append(record: Omit<JournalRecord, 'v' | 'at'> & { at?: string }, durable = false): Promise<void> {
    const { at, ...rest } = record;
    const line = `${JSON.stringify({ v: 1, at: at ?? new Date().toISOString(), ...rest })}\n`;
    const write = this.#queue.then(async () => {
      if (this.#failure) throw this.#failure;
      await this.handle.appendFile(line);
      if (durable) await this.handle.datasync();
    });
    this.#queue = write.catch((error: unknown) => {
      this.#failure ??= error;
    });
    return write;
  }

  async close(): Promise<void> {
    await this.#queue;
    await this.handle.datasync().catch(() => {});
    await this.handle.close();
  }
}
