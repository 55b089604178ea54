/**
 * A job of an earlier run that the service says does not exist (a 404 of the job, twice: see
 * collect.ts) has its file sent again in the same run, as the next run would: before, the file failed
 * and only the run after sent it, two runs (two nights for a cron) where one does. Its check and
 * upload take the slots the stages' own take (the run's `-c`), and its job is waited for (or, with
 * `--no-wait`, left pending) by the worker that met the gone job, which pushes into no queue: a
 * worker of the last stage waiting for room in the first would close a loop of full queues.
 *
 * The journal needs no line of its own for it: until the new upload's `uploading` line, the old
 * `submitted` line stands, and a run that crashes in between looks at the gone job again and meets
 * the same 404; after it, that line names the new upload, and the gone job is never looked at again.
 */
import { checkInput } from './check.js';
import { collectOne } from './collect.js';
import type { JobGone } from './look-failures.js';
import { type Engine, stoppedReason } from './engine.js';
import { collectAccepted } from './find-accepted.js';
import { type PublishWork, publishOne } from './publish.js';
import { outputWritable, sendOne } from './send.js';
import { journalAhead } from './upload-journal.js';
import type { AcceptedWork, CheckedWork, CollectWork, SendWork } from './work.js';

/** Runs `run` in one of a fixed number of slots (a p-limit). */
export type Slots = <T>(run: () => Promise<T>) => Promise<T>;

/**
 * The local check of an input about to be sent, and its `uploading` line journaled ahead: the check
 * stage's work for one input. Undefined when it is not sent (its outcome recorded).
 */
export async function checkToSend(engine: Engine, work: SendWork): Promise<CheckedWork | undefined> {
  const { recorder } = engine;
  if (engine.stop.aborted) {
    recorder.pending(work.entry, `${stoppedReason(engine)} (not sent)`);
    return undefined;
  }
  const result = await checkInput(
    work,
    engine.limits,
    recorder,
    (message) => engine.log.warn(message),
    engine.minAge,
  );
  if (result.kind === 'left') recorder.skipped(work.entry, result.reason, true);
  if (result.kind !== 'checked') return undefined;
  recorder.progress.bytesTotal += result.identity.size;
  if (engine.stop.aborted) {
    recorder.pending(work.entry, `${stoppedReason(engine)} (not sent)`);
    return undefined;
  }
  if (!(await outputWritable(engine, result))) return undefined;
  return journalAhead(engine, result);
}

/** A job to wait for, whoever sent it: a job named or one to look for by its upload name. */
export function collectJob(engine: Engine, job: CollectWork | AcceptedWork): Promise<JobGone | undefined> {
  return (
    job.kind === 'accepted' ? collectAccepted(engine, job).then(() => undefined) : collectOne(engine, job)
  ).finally(() => job.releaseSpace?.());
}

/** Sends the file of a gone job again, and settles what its upload brings (a result or a job). */
export async function sendAgain(
  engine: Engine,
  job: CollectWork,
  gone: JobGone,
  slots: { check: Slots; upload: Slots },
): Promise<void> {
  engine.log.info(
    `${job.entry.display}: job ${job.jobId} of an earlier run no longer exists at the service (${gone.answer}); sending the file again`,
  );
  // Its last record is the gone job's: a rejection now may replace it (nothing is left to collect).
  const checked = await slots.check(() =>
    checkToSend(engine, { kind: 'send', entry: job.entry, last: undefined }),
  );
  if (!checked) return;
  const next = await slots.upload(() => sendOne(engine, checked));
  if (!next) return;
  if (next.kind === 'publish') {
    const work: PublishWork = next;
    await publishOne(engine, work).finally(() => work.releaseSpace?.());
    return;
  }
  // With --no-wait, its job is looked at as the stages' are, until the service has confirmed one.
  const sent =
    next.kind === 'collect' && !engine.wait ? await engine.jobConfirmation.confirm(engine, next) : next;
  // Sent in this run, its job is fresh: a 404 of it is the setup's, never gone again (no loop).
  await collectJob(engine, sent);
}
