/**
 * The upload stage: at most `-c` at once. Each upload carries a name unique to its input and attempt,
 * journaled (and flushed) before the first byte leaves. A synchronous answer is verified as it is
 * written; an asynchronous one is journaled with its job id and handed to the collect stage.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { isTokenRefused } from '../api/errors.js';
import { uploadMayHaveBeenAccepted } from '../api/upload-fate.js';
import { LocalFsError } from '../fs/errors.js';
import { checkInput, stillSame } from './check.js';
import { type Engine, isStopping, messageOf, stoppedReason } from './engine.js';
import { resultSink } from './verify.js';
import type { CheckedWork, CollectWork } from './work.js';

/** `<stem>.<8 hex><ext>`: unique to the input and the attempt, so recovery can look for exactly it. */
export function uploadNameFor(path: string, tag = randomBytes(4).toString('hex')): string {
  const name = basename(path);
  const ext = extname(name);
  const stem = ext && ext !== name ? name.slice(0, -ext.length) : name;
  return `${stem}.${tag}${ext}`;
}

/** Sends one checked input; returns the job to collect when the answer was one. */
export async function sendOne(engine: Engine, checked: CheckedWork): Promise<CollectWork | undefined> {
  const { recorder, entry } = { recorder: engine.recorder, entry: checked.entry };
  if (engine.stop.aborted) {
    recorder.pending(entry, `${stoppedReason(engine)} (not sent)`);
    return undefined;
  }
  await engine.beforeUpload?.(entry.input);
  let work = checked;
  if (!(await stillSame(work))) {
    // Replaced or changed since its check: what would be sent is not what was checked.
    const again = await checkInput(work, engine.limits, recorder);
    if (again.kind === 'rejected') return undefined;
    work = again;
  }
  const uploadName = uploadNameFor(entry.input);
  recorder.progress.inFlight++;
  recorder.changed();
  try {
    await recorder.uploading(entry, work.identity, uploadName, work.durationSec, work.sha256);
  } catch (error) {
    recorder.progress.inFlight--;
    recorder.failedUnrecorded(entry, `not sent: ${messageOf(error)}`);
    return undefined;
  }
  let answer: Awaited<ReturnType<typeof upload>>;
  try {
    answer = await upload(engine, work, uploadName);
  } catch (error) {
    await uploadFailed(engine, work, error);
    return undefined;
  } finally {
    recorder.progress.inFlight--;
    recorder.progress.bytesSent += work.identity.size;
    recorder.changed();
  }
  if (!(await stillSame(work))) {
    // Changed while it was being sent: the result is of bytes nobody checked.
    if (answer.kind === 'audio') await rm(entry.output, { force: true }).catch(() => {});
    await recorder.failed(
      entry,
      work.identity,
      'the file changed while it was being sent; it is sent again next run',
    );
    return undefined;
  }
  if (answer.kind === 'audio') {
    await recorder.done(entry, work.identity, {
      via: 'sync',
      bytes: answer.result.bytes,
      outputSha256: answer.result.sha256,
      inputSha256: work.sha256,
    });
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

function upload(engine: Engine, work: CheckedWork, uploadName: string) {
  const sink = resultSink(
    { outDir: engine.outDir, outputRel: work.entry.outputRel },
    { durationSec: work.durationSec, tolerance: engine.tolerance },
    engine.abort,
  );
  return engine.gate.run(
    () => engine.client.redact(work.entry.input, engine.fields, uploadName, sink, engine.abort),
    engine.abort,
  );
}

async function uploadFailed(engine: Engine, work: CheckedWork, error: unknown): Promise<void> {
  const { recorder, entry } = { recorder: engine.recorder, entry: work.entry };
  if (error instanceof LocalFsError) {
    // The service did its work, this machine could not keep it: a full disk stops the batch.
    if (error.stopsBatch) engine.halt.stop(error);
    await recorder.failed(entry, work.identity, error.message);
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
