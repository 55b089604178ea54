/**
 * The publish stage: a synchronous answer, already whole and verified under its temporary name, is
 * flushed and put under its output name outside the upload slots (so the next upload starts while it
 * is), then recorded done; an answer to a file that changed while it was sent is discarded.
 */
import { LocalFsError } from '../fs/errors.js';
import { messageWithHint } from '../errors.js';
import { type Engine, stoppedReason } from './engine.js';
import { LockLostError } from './lock-lost.js';
import type { UnpublishedResult } from './verify.js';
import type { CheckedWork } from './work.js';

/** A synchronous answer, whole and verified under its temporary name: the publish stage finishes it. */
export interface PublishWork {
  kind: 'publish';
  work: CheckedWork;
  result: UnpublishedResult;
  /** The SHA-256 of the bytes a streamed upload read and sent. */
  sentSha256: string | undefined;
  /** Gives back the room its upload claimed for the result (free-space.ts), once it is on disk. */
  releaseSpace?: () => void;
}

export const CHANGED_WHILE_SENT = 'the file changed while it was being sent; it is sent again next run';

/**
 * Whether what was sent is what was checked. Bytes kept from the check were sent as they are; a
 * streamed file's bytes were hashed as they went out, and must hash as its check did. (The journal
 * keeps the identity of the check, so a file changed since is sent again next run.)
 */
export function sentAsChecked(work: CheckedWork, sentSha256: string | undefined): boolean {
  return work.bytes !== undefined || sentSha256 === work.sha256;
}

/**
 * The publish stage: a result whose input is still the one sent is flushed, put under its name and
 * recorded done; otherwise it is discarded and the file fails (it is sent again next run).
 */
export async function publishOne(engine: Engine, { work, result, sentSha256 }: PublishWork): Promise<void> {
  const { recorder, entry } = { recorder: engine.recorder, entry: work.entry };
  if (!sentAsChecked(work, sentSha256)) {
    await result.discard();
    await recorder.failed(entry, work.identity, CHANGED_WHILE_SENT);
    return;
  }
  try {
    await result.publish();
  } catch (error) {
    // The lock is another run's now: this run puts no output in place and journals nothing more.
    if (error instanceof LockLostError) recorder.pending(entry, stoppedReason(engine));
    else await localFailure(engine, work, error);
    return;
  }
  await recorder.done(entry, work.identity, {
    via: 'sync',
    bytes: result.bytes,
    outputSha256: result.sha256,
    inputSha256: work.sha256,
  });
}

/**
 * The service did its work, this machine could not keep it: a full disk stops the batch, and the
 * output's folder is checked again before anything more is sent for it.
 */
export async function localFailure(engine: Engine, work: CheckedWork, error: LocalFsError | unknown) {
  if (error instanceof LocalFsError && error.stopsBatch) engine.halt.stop(error);
  if (error instanceof LocalFsError) await engine.outputFolder.forgetWritable(work.entry.outputRel);
  // The file's own line says what to do: no hint line follows a file's line.
  await engine.recorder.failed(work.entry, work.identity, messageWithHint(error));
}
