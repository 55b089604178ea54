/** What the journals say, summed up: counts by state and the files to list, in a stable order. */
import { isAbsolute, join } from 'node:path';
import type { LatestRecords } from './read-journals.js';
import { type FileState, shownTime, stateOf, type StatusRecord } from './records.js';

export type StatusCounts = Record<FileState, number> & { total: number };

export interface FileStatus {
  /** Absolute real path of the input, as journaled. */
  input: string;
  /** Absolute path of the output (the output folder joined with the journaled relative path). */
  output: string;
  state: FileState;
  /** The journal's last event for it (`uploading` or `submitted` tell the two kinds of pending apart). */
  event: StatusRecord['event'];
  /** Why it is where it is, in the words the terminal and the pipe show (none for a done file). */
  reason?: string;
  jobId?: string;
  /** An upload whose answer was lost: its job is (or was) looked for before the file is sent again. */
  answerLost?: true;
  /** When its last record was written, or for a done file when it was redacted (ISO 8601, shownTime). */
  at: string;
  /**
   * When its last record is not done and a done one came before it: the output that record vouched
   * for, which no later attempt replaced (see earlier-output.ts), and the bytes it came from.
   */
  earlierOutput?: EarlierOutput;
}

export interface EarlierOutput {
  /** Absolute path, as `output`. */
  output: string;
  /** SHA-256 of the input's bytes that output is the redaction of. */
  inputSha256?: string;
  outputSha256?: string;
  jobId?: string;
  /** When it was recorded done (ISO 8601). */
  doneAt: string;
}

/** The order files are listed in: problems first, then what is under way, then what is done. */
const STATE_ORDER: Record<FileState, number> = { failed: 0, rejected: 1, pending: 2, uploading: 3, done: 4 };

/** The output of a record as an absolute path; the journal keeps it relative to the output folder. */
export function outputPath(outDir: string, output: string): string {
  if (output === '') return '';
  return isAbsolute(output) ? output : join(outDir, ...output.split('/'));
}

export function fileStatus(outDir: string, record: StatusRecord): FileStatus {
  const file: FileStatus = {
    input: record.input,
    output: outputPath(outDir, record.output),
    state: stateOf(record.event, record.inFlight),
    event: record.event,
    at: shownTime(record),
  };
  // The words the terminal and the pipe show: a pending file with no journaled reason (an upload cut
  // short, a job submitted, a lost answer) had none in --json, which scripts had to guess from `event`.
  const reason = reasonOf(record);
  if (reason !== '') file.reason = reason;
  if (record.jobId !== undefined) file.jobId = record.jobId;
  if (record.answerLost === true) file.answerLost = true;
  if (record.earlier !== undefined) file.earlierOutput = earlierOutput(outDir, record.earlier);
  return file;
}

function earlierOutput(outDir: string, done: StatusRecord): EarlierOutput {
  const earlier: EarlierOutput = { output: outputPath(outDir, done.output), doneAt: shownTime(done) };
  if (done.inputSha256 !== undefined) earlier.inputSha256 = done.inputSha256;
  if (done.outputSha256 !== undefined) earlier.outputSha256 = done.outputSha256;
  if (done.jobId !== undefined) earlier.jobId = done.jobId;
  return earlier;
}

export interface Summary {
  counts: StatusCounts;
  /**
   * The files to list: failed, rejected and pending ones (and, with `all`, the done ones too), by state
   * and then by input path, so two runs of status over the same journals print the same lines. Each
   * record is built as it is listed: only the paths are held.
   */
  listed: Iterable<StatusRecord>;
}

/**
 * Counts and the files to list, in one pass over the inputs: a state is read without building its
 * record. The paths listed are held (the table's own strings) and sorted, and each record is built
 * as it is written: over 1,000,000 jobs submitted with `--no-wait` the list of records held took
 * 717 MB.
 */
export function summarize(latest: Pick<LatestRecords, 'keys' | 'stateOf' | 'get'>, all: boolean): Summary {
  const counts: StatusCounts = { done: 0, uploading: 0, pending: 0, failed: 0, rejected: 0, total: 0 };
  const byState: Record<FileState, string[]> = {
    failed: [],
    rejected: [],
    pending: [],
    uploading: [],
    done: [],
  };
  for (const input of latest.keys()) {
    const state = latest.stateOf(input);
    if (state === undefined) continue;
    counts[state]++;
    counts.total++;
    if (all || state !== 'done') byState[state].push(flat(input));
  }
  const states = (Object.keys(STATE_ORDER) as FileState[]).sort((a, b) => STATE_ORDER[a] - STATE_ORDER[b]);
  for (const state of states) byState[state].sort(byText);
  return {
    counts,
    listed: recordsOf(
      latest,
      states.flatMap((state) => byState[state]),
    ),
  };
}

function* recordsOf(latest: Pick<LatestRecords, 'get'>, inputs: readonly string[]): Iterable<StatusRecord> {
  for (const input of inputs) {
    const record = latest.get(input);
    if (record !== undefined) yield record;
  }
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The inputs an output stands for (done, or with an earlier output a later attempt left in place), by
 * path: the rows of the manifest. Only the paths are held (the table's own strings) and sorted; each
 * row is built as it is written, so a million done files cost a million references, not a million
 * records.
 */
export function manifestInputs(latest: Pick<LatestRecords, 'keys' | 'hasStandingOutput'>): string[] {
  const done: string[] = [];
  for (const input of latest.keys()) if (latest.hasStandingOutput(input)) done.push(flat(input));
  return done.sort(byText);
}

/**
 * `text` in one piece. A path the journal's table gives back is its folder and its name joined, which
 * V8 keeps as a pair until something needs the characters in one run; the first comparison of the
 * sort would do it, in the old generation by then, where the halves left over wait for a full
 * collection: over 1,000,000 done inputs the manifest took 55 MB more peak RSS and 15 % more time
 * than with each path made whole as it is kept. Reading a string as a number needs its characters in
 * one piece, so V8 joins them; JavaScript has no plainer way to ask (the result is not used).
 */
function flat(text: string): string {
  Number(text);
  return text;
}

/**
 * Why a file is where it is, in words, for the terminal and TSV (the journal's reason when it has
 * one), and the output an earlier attempt left standing.
 */
export function describe(record: StatusRecord): string {
  const why = reasonOf(record);
  if (record.earlier === undefined) return why;
  const earlier = earlierNote(record.earlier);
  return why === '' ? earlier : `${why}; ${earlier}`;
}

function reasonOf(record: StatusRecord): string {
  if (record.inFlight && record.answerLost)
    return "its upload's answer was lost; the run under way is looking for its job";
  if (record.inFlight) return 'being sent by the run under way (its upload started, or is next)';
  if (record.reason !== undefined) return record.reason;
  if (record.event === 'submitted') return 'submitted; the next run collects its job';
  if (record.event === 'uploading') {
    const what = record.answerLost ? "its upload's answer was lost" : 'upload interrupted';
    return `${what}; the next run looks for its job first, then sends it again`;
  }
  return '';
}

/** `its earlier output a.wav stands (done 2026-11-21T02:00:09.514Z, of input SHA-256 9b1f…)`. */
function earlierNote(done: StatusRecord): string {
  const of = done.inputSha256 === undefined ? '' : `, of input SHA-256 ${done.inputSha256.slice(0, 12)}…`;
  return `its earlier output ${done.output} stands (done ${shownTime(done)}${of})`;
}
