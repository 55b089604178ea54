/**
 * The journal's lines of one upload: the `uploading` line flushed before its first byte leaves (or
 * taken back when it is not made), and the `submitted` line of the job it became.
 */
import { lstatSync } from 'node:fs';
import { type Engine, messageOf, stoppedReason } from './engine.js';
import { LockLostError } from './lock-lost.js';
import { uploadNameFor } from './upload-name.js';
import type { CheckedWork, CollectWork } from './work.js';

/** Whether no output stands at `output` (a synchronous stat: one per upload, microseconds). */
export function noOutputAt(output: string): boolean {
  try {
    return lstatSync(output, { throwIfNoEntry: false }) === undefined;
  } catch {
    // Not known: the line does not say it was absent.
    return false;
  }
}

/**
 * What an `uploading` line says of the upload: its name, the input's duration and hash as checked,
 * and whether no output stood at the input's place.
 */
export function uploadOf(work: CheckedWork, uploadName: string) {
  const outputAbsent = noOutputAt(work.entry.output);
  return { uploadName, durationSec: work.durationSec, inputSha256: work.sha256, outputAbsent };
}

/**
 * Journals the upload of a checked input before a slot is free for it: its `uploading` line, with the
 * name the upload will carry, is on disk when a slot takes it, so the flush is not on the path from
 * one upload's answer to the next upload. A line for a file that is then not sent (the batch stops)
 * costs the next run one look-up among the jobs, which finds nothing for it and sends it.
 */
export async function journalAhead(engine: Engine, work: CheckedWork): Promise<CheckedWork | undefined> {
  const uploadName = uploadNameFor(work.entry.input, work.format);
  try {
    await engine.recorder.uploading(work.entry, work.identity, uploadOf(work, uploadName));
  } catch (error) {
    unjournaled(engine, work, error);
    return undefined;
  }
  return { ...work, uploadName };
}

/**
 * An input not sent because its `uploading` line could not be journaled: failed (a full disk), or
 * pending when its lock was taken over (the run that holds it now sends it).
 */
export function unjournaled(engine: Engine, work: CheckedWork, error: unknown): void {
  if (error instanceof LockLostError)
    engine.recorder.pending(work.entry, `${stoppedReason(engine)} (not sent)`);
  else engine.recorder.failedUnrecorded(work.entry, `not sent: ${messageOf(error)}`);
}

/** Takes back the `uploading` line journaled ahead for an upload that is not made. */
export async function notSent(engine: Engine, work: CheckedWork): Promise<void> {
  if (work.uploadName !== undefined)
    await engine.recorder.withdrawn(work.entry, work.identity, work.uploadName);
}

/**
 * Journals the job an upload became (`reconciled`: found among the jobs after its answer was lost);
 * false, the input failed, when the journal cannot take it. */
export async function journalSubmitted(
  engine: Engine,
  job: CollectWork,
  reconciled = false,
): Promise<boolean> {
  try {
    await engine.recorder.submitted(job.entry, job.identity, job, reconciled);
    return true;
  } catch (error) {
    engine.recorder.failedUnrecorded(
      job.entry,
      `submitted as job ${job.jobId}, but the journal could not be written: ${messageOf(error)}`,
    );
    return false;
  }
}
