/**
 * The upload stage: at most `-c` at once. Each upload carries a name unique to its input and attempt,
 * journaled (and flushed) before the first byte leaves. A synchronous answer is verified as it is
 * written to a temporary file and handed to the publish stage, so the slot is free for the next upload
 * while the output is flushed and renamed; an asynchronous one is journaled with its job id and handed
 * to the collect stage.
 */
import { dirname } from 'node:path';
import { failsEveryRequest, isTokenRefused, NotSentError } from '../api/errors.js';
import { uploadMayHaveBeenAccepted, withSetupHint } from '../api/upload-fate.js';
import { LocalFsError } from '../fs/errors.js';
import { resultNeed } from './free-space.js';
import { lostAnswerReason } from './look-up-words.js';
import { GateClosedError } from './gate.js';
import { checkInput, stillSame } from './check.js';
import { type Engine, isStopping, messageOf, requestSignals, stoppedReason } from './engine.js';
import { unpublishedResultSink } from './verify.js';
import { countFailedUpload } from './wrong-service.js';
import { CHANGED_WHILE_SENT, localFailure, type PublishWork, sentAsChecked } from './publish.js';
import { journalSubmitted, notSent, unjournaled, uploadOf } from './upload-journal.js';
import { uploadNameFor } from './upload-name.js';
import { type AcceptedWork, acceptedWork, type CheckedWork, type CollectWork } from './work.js';

/**
 * Whether the input's output can be created where it goes; if not, the input fails now, unsent (and a
 * full disk stops the batch). Sent, its result would have been lost at the end, every run. Asked at
 * its check and again just before its upload: only a folder where a write failed since is looked at
 * again (see OutputFolder.forgetWritable).
 */
export async function outputWritable(engine: Engine, work: CheckedWork): Promise<boolean> {
  try {
    await engine.outputFolder.checkWritable(work.entry.outputRel);
    return true;
  } catch (error) {
    await notSent(engine, work);
    await localFailure(engine, work, error);
    return false;
  }
}

/**
 * Claims room for the input's result on the output's file system (free-space.ts). Where there is
 * none, the input is not sent and stays to be sent, and the batch stops as on a full disk: its
 * result could not have been saved.
 */
async function claimRoom(engine: Engine, work: CheckedWork): Promise<(() => void) | undefined> {
  const need = resultNeed({ ...work, size: work.identity.size }, engine.tolerance);
  const claim = engine.space.claim(dirname(work.entry.output), need, work.entry.display);
  if (typeof claim === 'function') return claim;
  engine.halt.stop(claim);
  await notSent(engine, work);
  engine.recorder.pending(work.entry, `${stoppedReason(engine)} (not sent)`);
  return undefined;
}

/**
 * Sends one checked input, when its result has room; returns the result to publish or the job to
 * collect, each holding the room claimed until it settles.
 */
export async function sendOne(
  engine: Engine,
  checked: CheckedWork,
): Promise<PublishWork | CollectWork | AcceptedWork | undefined> {
  // A lock found to be another run's aborts `stop`: then nothing is sent.
  await engine.confirmLock().catch(() => {});
  // A look at whether the base URL is the service may be under way: nothing is sent before it says.
  await engine.firstContact.settled();
  if (engine.stop.aborted) {
    await notSent(engine, checked);
    engine.recorder.pending(checked.entry, `${stoppedReason(engine)} (not sent)`);
    return undefined;
  }
  if (!(await outputWritable(engine, checked))) return undefined;
  const releaseSpace = await claimRoom(engine, checked);
  if (!releaseSpace) return undefined;
  const next = await sendClaimed(engine, checked).catch((error: unknown) => {
    releaseSpace();
    throw error;
  });
  if (!next) releaseSpace();
  return next && { ...next, releaseSpace };
}

async function sendClaimed(
  engine: Engine,
  checked: CheckedWork,
): Promise<PublishWork | CollectWork | AcceptedWork | undefined> {
  const { recorder, entry } = { recorder: engine.recorder, entry: checked.entry };
  await engine.beforeUpload?.(entry.input);
  let work = checked;
  recorder.begun(entry);
  recorder.changed();
  let journaled = checked.uploadName !== undefined;
  if (!stillSame(work)) {
    // Replaced or changed since its check: what would be sent is not what was checked.
    await notSent(engine, checked);
    const again = await checkInput(work, engine.limits, recorder, undefined, engine.minAge);
    // Modified since its check, and so too recent for --min-age: left for a later run, not sent.
    if (again.kind === 'left') recorder.skipped(entry, again.reason, true);
    if (again.kind !== 'checked') return undefined;
    work = again;
    journaled = false;
  }
  // A file replaced by one of the other format since its name was journaled goes by a name of its own.
  const uploadName =
    checked.uploadName !== undefined && work.format === checked.format
      ? checked.uploadName
      : uploadNameFor(entry.input, work.format);
  const failure = journaled
    ? undefined
    : await recorder.uploading(entry, work.identity, uploadOf(work, uploadName)).then(
        () => undefined,
        (error: unknown) => error ?? new Error('the journal could not be written'),
      );
  if (failure !== undefined) {
    unjournaled(engine, work, failure);
    return undefined;
  }
  let answer: Awaited<ReturnType<typeof upload>>;
  let sentSha256: string | undefined;
  const sinceMs = engine.clock.now();
  try {
    answer = await upload(engine, work, uploadName, (sha256) => {
      sentSha256 = sha256;
    });
  } catch (error) {
    // Not made at all (the token had just been refused), or refused with the token: no job came of
    // it, so the next run sends it without looking for one.
    if (error instanceof GateClosedError || error instanceof NotSentError || isTokenRefused(error))
      await notSent(engine, { ...work, uploadName });
    const lost = await uploadFailed(engine, work, error, sentSha256);
    if (lost === undefined) return undefined;
    return acceptedWork(work, uploadName, sinceMs, { ...lost, failedAtMs: engine.clock.now() });
  } finally {
    recorder.progress.bytesSent += work.identity.size;
    recorder.changed();
  }
  // A job id is the service's only once its job is seen (collect.ts): a wrong host may name jobs too.
  if (answer.kind !== 'job') engine.wrongService.recognised();
  if (answer.kind === 'audio') {
    // A result is an answer only the service gives (service-heard.ts); a 202 or a job id is not.
    engine.serviceHeard.hear();
    return { kind: 'publish', work, result: answer.result, sentSha256 };
  }
  if (!sentAsChecked(work, sentSha256)) {
    await recorder.failed(
      entry,
      work.identity,
      CHANGED_WHILE_SENT,
      answer.kind === 'job' ? answer.jobId : undefined,
    );
    return undefined;
  }
  // The journal keeps `uploading`: its job is found by that line's upload name, now or by a later run.
  if (answer.kind === 'accepted') return acceptedWork(work, uploadName, sinceMs);
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
  return (await journalSubmitted(engine, job)) ? job : undefined;
}

function upload(engine: Engine, work: CheckedWork, uploadName: string, onFileSent: (sha256: string) => void) {
  const sink = unpublishedResultSink(
    { folder: engine.outputFolder, outputRel: work.entry.outputRel, beforePublish: engine.confirmLock },
    {
      durationSec: work.durationSec,
      tolerance: engine.tolerance,
      upload: { sha256: work.sha256, path: work.entry.input },
    },
    engine.abort,
  );
  return engine.gate.run(
    () =>
      engine.client.redact(work.entry.input, engine.fields, uploadName, sink, {
        ...requestSignals(engine),
        bytes: work.bytes,
        onFileSent,
        onRequest: (underWay) => engine.recorder.requestUnderWay(underWay),
      }),
    engine.abort,
  );
}

/**
 * Records a failed upload; returns its reason and error instead when its fate is unknown and the run
 * goes on, so that its job is looked for before the run ends (find-accepted.ts).
 */
async function uploadFailed(
  engine: Engine,
  work: CheckedWork,
  error: unknown,
  sentSha256: string | undefined,
): Promise<{ reason: string; error: unknown } | undefined> {
  const { recorder, entry } = { recorder: engine.recorder, entry: work.entry };
  if (error instanceof LocalFsError) {
    await localFailure(engine, work, error);
    return;
  }
  // The first refusal is the failure; uploads refused or aborted with it were only in flight with it.
  if (isTokenRefused(error) && error === engine.tokenRefused()) {
    recorder.failedUnrecorded(entry, messageOf(error));
    return;
  }
  if (isStopping(engine, error)) {
    recorder.pending(entry, `${stoppedReason(engine)}${error instanceof NotSentError ? ' (not sent)' : ''}`);
    return;
  }
  countFailedUpload(engine.wrongService, error);
  const failure = await engine.firstContact.judge(engine, error);
  if (failsEveryRequest(failure)) engine.halt.stop(failure);
  if (uploadMayHaveBeenAccepted(failure)) {
    // The journal keeps `uploading` as its latest line: the next run looks for its job first.
    const reason = lostAnswerReason(failure);
    // Bytes other than those checked went out: a job of them is not this file's redaction.
    const changed = sentSha256 !== undefined && !sentAsChecked(work, sentSha256);
    if (!engine.stop.aborted && !changed) return { reason, error: failure };
    recorder.failedUnrecorded(entry, reason);
    return undefined;
  }
  await recorder.failed(entry, work.identity, withSetupHint(messageOf(failure), failure));
  return undefined;
}
