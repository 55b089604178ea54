/**
 * The upload stage: at most `-c` at once. Each upload carries a name unique to its input and attempt,
 * journaled (and flushed) before the first byte leaves. A synchronous answer is verified as it is
 * written to a temporary file and handed to the publish stage, so the slot is free for the next upload
 * while the output is flushed and renamed; an asynchronous one is journaled with its job id and handed
 * to the collect stage.
 */
import { randomBytes } from 'node:crypto';
import { basename, extname } from 'node:path';
import { isTokenRefused } from '../api/errors.js';
import { uploadMayHaveBeenAccepted } from '../api/upload-fate.js';
import { LocalFsError } from '../fs/errors.js';
import { checkInput, stillSame } from './check.js';
import { type Engine, isStopping, messageOf, stoppedReason } from './engine.js';
import { type UnpublishedResult, unpublishedResultSink } from './verify.js';
import type { CheckedWork, CollectWork } from './work.js';

/** A synchronous answer, whole and verified under its temporary name: the publish stage finishes it. */
export interface PublishWork {
  kind: 'publish';
  work: CheckedWork;
  result: UnpublishedResult;
  /** The SHA-256 of the bytes a streamed upload read and sent. */
  sentSha256: string | undefined;
}

const CHANGED_WHILE_SENT = 'the file changed while it was being sent; it is sent again next run';

/**
 * Whether what was sent is what was checked. Bytes kept from the check were sent as they are; a
 * streamed file's bytes were hashed as they went out, and must hash as its check did. (The journal
 * keeps the identity of the check, so a file changed since is sent again next run.)
 */
function sentAsChecked(work: CheckedWork, sentSha256: string | undefined): boolean {
  return work.bytes !== undefined || sentSha256 === work.sha256;
}

/** `<stem>.<8 hex><ext>`: unique to the input and the attempt, so recovery can look for exactly it. */
export function uploadNameFor(path: string, tag = randomBytes(4).toString('hex')): string {
  const name = basename(path);
  const ext = extname(name);
  const stem = ext && ext !== name ? name.slice(0, -ext.length) : name;
  return `${stem}.${tag}${ext}`;
}

/** Sends one checked input; returns the result to publish or the job to collect. */
export async function sendOne(
  engine: Engine,
  checked: CheckedWork,
): Promise<PublishWork | CollectWork | undefined> {
  const { recorder, entry } = { recorder: engine.recorder, entry: checked.entry };
  if (engine.stop.aborted) {
    recorder.pending(entry, `${stoppedReason(engine)} (not sent)`);
    return undefined;
  }
  await engine.beforeUpload?.(entry.input);
  let work = checked;
  const uploadName = uploadNameFor(entry.input);
  const journaled = (w: CheckedWork) =>
    recorder.uploading(entry, w.identity, uploadName, w.durationSec, w.sha256).then(
      () => undefined,
      (error: unknown) => error ?? new Error('the journal could not be written'),
    );
  recorder.progress.inFlight++;
  recorder.changed();
  // The identity check and the journal line go together: both are on the path of every upload, and
  // a line for a file that then proves changed is superseded by the next one (checked again) anyway.
  const [same, first] = await Promise.all([stillSame(work), journaled(work)]);
  let failure = first;
  if (!same && failure === undefined) {
    // Replaced or changed since its check: what would be sent is not what was checked.
    const again = await checkInput(work, engine.limits, recorder);
    if (again.kind === 'rejected') {
      recorder.progress.inFlight--;
      return undefined;
    }
    work = again;
    failure = await journaled(work);
  }
  if (failure !== undefined) {
    recorder.progress.inFlight--;
    recorder.failedUnrecorded(entry, `not sent: ${messageOf(failure)}`);
    return undefined;
  }
  let answer: Awaited<ReturnType<typeof upload>>;
  let sentSha256: string | undefined;
  try {
    answer = await upload(engine, work, uploadName, (sha256) => {
      sentSha256 = sha256;
    });
  } catch (error) {
    await uploadFailed(engine, work, error);
    return undefined;
  } finally {
    recorder.progress.inFlight--;
    recorder.progress.bytesSent += work.identity.size;
    recorder.changed();
  }
  if (answer.kind === 'audio') return { kind: 'publish', work, result: answer.result, sentSha256 };
  if (!sentAsChecked(work, sentSha256)) {
    await recorder.failed(entry, work.identity, CHANGED_WHILE_SENT, answer.jobId);
    return undefined;
  }
  const job: CollectWork = {
    kind: 'collect',
    entry,
    jobId: answer.jobId,
    uploadName,
    identity: work.identity,
    durationSec: work.durationSec,
    inputSha256: work.sha256,
    fresh: true,
  };
  try {
    await recorder.submitted(entry, work.identity, job);
  } catch (error) {
    recorder.failedUnrecorded(
      entry,
      `submitted as job ${job.jobId}, but the journal could not be written: ${messageOf(error)}`,
    );
    return undefined;
  }
  return job;
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
    await localFailure(engine, work, error);
    return;
  }
  await recorder.done(entry, work.identity, {
    via: 'sync',
    bytes: result.bytes,
    outputSha256: result.sha256,
    inputSha256: work.sha256,
  });
}

function upload(engine: Engine, work: CheckedWork, uploadName: string, onFileSent: (sha256: string) => void) {
  const sink = unpublishedResultSink(
    { folder: engine.outputFolder, outputRel: work.entry.outputRel },
    { durationSec: work.durationSec, tolerance: engine.tolerance },
    engine.abort,
  );
  return engine.gate.run(
    () =>
      engine.client.redact(work.entry.input, engine.fields, uploadName, sink, {
        signal: engine.abort,
        bytes: work.bytes,
        onFileSent,
      }),
    engine.abort,
  );
}

/** The service did its work, this machine could not keep it: a full disk stops the batch. */
async function localFailure(engine: Engine, work: CheckedWork, error: LocalFsError | unknown) {
  if (error instanceof LocalFsError && error.stopsBatch) engine.halt.stop(error);
  await engine.recorder.failed(work.entry, work.identity, messageOf(error));
}

async function uploadFailed(engine: Engine, work: CheckedWork, error: unknown): Promise<void> {
  const { recorder, entry } = { recorder: engine.recorder, entry: work.entry };
  if (error instanceof LocalFsError) {
    await localFailure(engine, work, error);
    return;
  }
  if (isTokenRefused(error)) {
    recorder.failedUnrecorded(entry, messageOf(error));
    return;
  }
  if (isStopping(engine, error)) {
    recorder.pending(entry, stoppedReason(engine));
    return;
  }
  if (uploadMayHaveBeenAccepted(error)) {
    // The journal keeps `uploading` as its latest line: the next run looks for its job first.
    recorder.failedUnrecorded(
      entry,
      `${messageOf(error)}; the service may have taken it: the next run looks for its job before sending again`,
    );
    return;
  }
  await recorder.failed(entry, work.identity, messageOf(error));
}
