/** The re-run rules: what a run does with one input, given what the journals say of it. */
import { type JournalRecord, sameIdentity } from './journal.js';
import type { InterruptedUpload } from './journal-read.js';

export type SkipDecision = { action: 'skip'; why: 'done' | 'output-exists' };
export type CollectDecision = {
  action: 'collect';
  jobId: string;
  uploadName: string;
  durationSec?: number | undefined;
  inputSha256?: string | undefined;
  /** Tries of its result's link that met no result in earlier runs (link-tries.ts). */
  linkMisses?: number | undefined;
};
export type SendDecision = {
  action: 'send';
  why: 'new' | 'changed' | 'retry' | 'output-missing' | 'overwrite' | 'touched';
  /**
   * `touched`: the done record whose time alone differs from the file's. The file's check hashes it
   * (check.ts): the bytes that record names are skipped as done and journaled with the new time.
   */
  doneIfSameBytes?: JournalRecord;
};
/**
 * Uploads of this very file were cut short: look for their jobs among the service's jobs first, by
 * their exact upload names (in the journal, see reconcile.ts); `otherwise` is what to do when none is
 * found.
 */
export type ReconcileDecision = {
  action: 'reconcile';
  /** When the first of those uploads started (ms since the epoch). */
  sinceMs: number;
  otherwise: SkipDecision | SendDecision;
};

/**
 * The last upload of this very file began with no output at its place, and an output stands there now:
 * it published that output and a crash took its `done` line. Checked, it is recorded done (adopt.ts).
 */
export type AdoptDecision = { action: 'adopt'; startedMs: number };

export type Decision = SkipDecision | CollectDecision | SendDecision | ReconcileDecision | AdoptDecision;

export interface DecideInput {
  record: JournalRecord | undefined;
  /** Set when `record` is an `uploading` one. */
  interrupted?: InterruptedUpload | undefined;
  size: number;
  mtimeMs: number;
  /** The fingerprint of the target-voice fields of this run (the journal's `options` field). */
  voiceFingerprint: string;
  outputExists: boolean;
  overwrite: boolean;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Whether a journal record is still this file: `same` when its size, modification time and options
 * are; `if-same-bytes` when only the time differs and the record is `done` with the SHA-256 of the
 * bytes it sent (a copy without its times, a restore from a backup, a `touch` change the time alone),
 * so the file is the same if its bytes hash to that; else `other`. Hashing is only ever asked for
 * then: a record of the same time settles it by size and time alone.
 */
export function recordMatch(
  record: JournalRecord,
  file: { size: number; mtimeMs: number },
  voiceFingerprint: string,
): 'same' | 'if-same-bytes' | 'other' {
  const identity = { size: file.size, mtimeMs: file.mtimeMs, options: voiceFingerprint };
  if (sameIdentity(record, identity)) return 'same';
  if (!sameIdentity(record, { ...identity, mtimeMs: record.mtimeMs })) return 'other';
  const sha = record.inputSha256;
  return record.event === 'done' && typeof sha === 'string' && SHA256_HEX.test(sha)
    ? 'if-same-bytes'
    : 'other';
}

/**
 * Done with the same size, modification time and options, and the output still there: skip (unless
 * --overwrite). Submitted with the same: collect the job, never upload again. Failed or rejected: try
 * again. An output that exists with no record of this input is not overwritten without --overwrite
 * (vredact cannot vouch for it; it may be the output of a run that crashed between writing it and
 * journaling it). Uploading with the same: reconcile (even with --overwrite: a job of this very file
 * is its redaction), otherwise do what the record before the uploads says. Done with only the time
 * changed and the output still there: sent unless its bytes are those the record sent (recordMatch).
 */
export function decide(input: DecideInput): Decision {
  const { record } = input;
  const match = record ? recordMatch(record, input, input.voiceFingerprint) : 'other';
  const same = match === 'same';
  if (record && same && record.event === 'submitted' && record.jobId) {
    return {
      action: 'collect',
      jobId: record.jobId,
      uploadName: record.uploadName ?? '',
      durationSec: record.durationSec,
      inputSha256: record.inputSha256,
      ...(record.linkMisses !== undefined ? { linkMisses: record.linkMisses } : {}),
    };
  }
  if (record && same && record.event === 'uploading') {
    const last = input.interrupted;
    if (last?.lastSawNoOutput && input.outputExists && !input.overwrite) {
      return { action: 'adopt', startedMs: last.lastStartedMs };
    }
    const otherwise = decide({ ...input, record: input.interrupted?.before, interrupted: undefined });
    if (otherwise.action === 'collect' || otherwise.action === 'reconcile' || otherwise.action === 'adopt')
      return otherwise;
    return {
      action: 'reconcile',
      sinceMs: input.interrupted?.sinceMs ?? Date.parse(record.at),
      otherwise,
    };
  }
  if (input.overwrite) return { action: 'send', why: 'overwrite' };
  if (record && same && record.event === 'done') {
    return input.outputExists ? { action: 'skip', why: 'done' } : { action: 'send', why: 'output-missing' };
  }
  if (record && match === 'if-same-bytes' && input.outputExists)
    return { action: 'send', why: 'touched', doneIfSameBytes: record };
  if (!record)
    return input.outputExists ? { action: 'skip', why: 'output-exists' } : { action: 'send', why: 'new' };
  if (!same) return { action: 'send', why: 'changed' };
  return { action: 'send', why: 'retry' };
}

/** Why a touched file is skipped: its check found the bytes its done record sent. */
export const SAME_BYTES_REASON = 'already done: unchanged bytes (modification time changed)';

export function skipReason(decision: SkipDecision): string {
  return decision.why === 'done'
    ? 'already done'
    : 'the output already exists and is not in the journal (--overwrite redoes it)';
}
