/**
 * The journal's format: `<out>/.vredact/journal.jsonl` (or `journal.<i>-of-<n>.jsonl` for a shard),
 * append only, one JSON object per line and per state change of an input. A run reads every journal
 * of the folder (latest `at` wins per input) and appends only to its own.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Shard } from './options.js';

export const STATE_DIR = '.vredact';
export const JOURNAL_NAME = 'journal.jsonl';
/** Every journal of an output folder: the unsharded one and one per shard. */
export const JOURNAL_FILE = /^journal(?:\.\d+-of-\d+)?\.jsonl$/;

/**
 * `withdrawn` takes back the `uploading` line of the same upload name: that upload never started, and
 * the input's record is what it was before (an older version reads it as a failure, and sends the file).
 */
export type JournalEvent = 'uploading' | 'withdrawn' | 'submitted' | 'done' | 'failed' | 'rejected';

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
   * uploading, submitted: the file name the upload carried (`<stem>.<random tag><ext>`, unique to the
   * input and the attempt): it tells the result from the input in a job's content, and finds the job
   * of an interrupted upload exactly.
   */
  uploadName?: string;
  /** uploading, submitted: the input's duration by the local checks, in seconds. */
  durationSec?: number;
  /**
   * uploading: no output stood at the input's place as the upload began. An output there after a
   * crash was published by this upload, its `done` line lost: the next run checks it and records it.
   */
  outputAbsent?: boolean;
  /**
   * uploading: the same upload's line journaled again when its answer was lost (a 504, a connection
   * dropped), before the run looks for its job (find-accepted.ts): `status` says it is looked for,
   * not sent. Absent (an earlier version's journal): an upload as any.
   */
  answerLost?: boolean;
  /** done: recorded by a later run, which checked the output a crashed run had published (adopt.ts). */
  recovered?: boolean;
  /**
   * submitted: GETs of the job's result link that found no result (404, 410) in earlier runs; the
   * submitted line is written again with it by a run that leaves the job pending after such tries
   * (`--no-wait`, or its wait over; link-tries.ts). Absent: none.
   */
  linkMisses?: number;
  /** submitted: the job was found among the service's jobs after an interrupted upload. */
  reconciled?: boolean;
  /** done: `sync` (the answer was the audio) or `job` (collected from an asynchronous job). */
  via?: 'sync' | 'job';
  /**
   * done: when the redaction was done, on a done line journaled again for a file whose time alone
   * changed (record.ts sameBytes), whose own `at` is when that was; absent, `at` is (doneTimeOf).
   */
  doneAt?: string;
  /** done: bytes of the output. */
  bytes?: number;
  /** failed, rejected: why. */
  reason?: string;
  /** uploading, submitted, done: SHA-256 (hex) of the input's bytes as they were checked and sent. */
  inputSha256?: string;
  /** done: SHA-256 (hex) of the output as it was written. */
  outputSha256?: string;
  /** done: the target-voice fields sent with it. */
  voice?: Readonly<Record<string, string>>;
}

/** What a stage hands the journal: everything but the version and the time. */
export type JournalEntry = Omit<JournalRecord, 'v' | 'at'>;

/** This run's own journal: one per shard, so that shards on one folder never write the same file. */
export function journalPath(outDir: string, shard?: Shard): string {
  const name = shard ? `journal.${shard.index}-of-${shard.count}.jsonl` : JOURNAL_NAME;
  return join(outDir, STATE_DIR, name);
}

/** This run's lock name: shards of one folder run side by side, each under its own lock. */
export function lockNameFor(shard?: Shard): string {
  return shard ? `lock.${shard.index}-of-${shard.count}` : 'lock';
}

/** The lock of the runs that write a journal: `lock` for `journal.jsonl`, a shard's for its shard's. */
export function lockNameOfJournal(journalName: string): string {
  return journalName.replace(/^journal/, 'lock').replace(/\.jsonl$/, '');
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

export function sameIdentity(
  a: Pick<JournalRecord, 'size' | 'mtimeMs' | 'options'>,
  b: Pick<JournalRecord, 'size' | 'mtimeMs' | 'options'>,
): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.options === b.options;
}

/** When a done record's redaction was done: its `doneAt` when it carries one (a touched file's), else its `at`. */
export function doneTimeOf(record: Pick<JournalRecord, 'at' | 'doneAt'>): string {
  const { doneAt } = record;
  return typeof doneAt === 'string' && Number.isFinite(Date.parse(doneAt)) ? doneAt : record.at;
}
