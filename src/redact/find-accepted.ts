/**
 * An upload the service accepted without naming its job: its job is looked for among the service's
 * jobs by the upload's name (accepted-jobs.ts), within the wait of an asynchronous job
 * (`--wait-timeout`, from its acceptance), then journaled `submitted` and collected as any job. Not
 * found by then, or with `--no-wait`, it is pending: its journal keeps `uploading`, so the next run
 * looks for its job (interrupted-look-up.ts) before sending it again.
 *
 * An upload whose answer was lost (a gateway's 504, a 500 or 502, a connection dropped or timed out
 * after the request went out) is looked for the same way, in the same rounds, until the rest of the
 * run is done and at least LOST_FIRST_LOOK_MS after its failure (accepted-jobs.ts): found, it is
 * journaled `submitted` and collected in this run; not found, it fails as it did, its journal keeping
 * `uploading`, and the next run looks for it before sending it again. It is never sent again in this
 * run: a job the service makes after the last look would then be a second redaction of it.
 */
import { formatDuration } from '../output/format.js';
import type { AcceptedLookUp } from './accepted-jobs.js';
import { collectOne } from './collect.js';
import { type Engine, messageOf, stoppedReason } from './engine.js';
import { journalSubmitted, noOutputAt } from './upload-journal.js';
import type { AcceptedWork, CollectWork } from './work.js';
import { lostAnswerReason } from './look-up-words.js';
import { listingAnswerWords, listingPointsAtSetup, WrongServiceError } from './wrong-service.js';

const UNNAMED = 'accepted by the service without naming its job';

/** A lost upload's first look, after its failure: a service behind a gateway may make its job later. */
export const LOST_FIRST_LOOK_MS = 5000;
/**
 * Lost uploads looked for at once; those beyond fail as they did, and the next run looks for them.
 * Well under the stage's job waiters (stages.ts), whom the others need: a lost upload waits for the
 * rest of the run, and a storm of 500s must not hold every waiter nor the memory of every file.
 */
export const LOST_LOOKS_MAX = 64;
const LOOKED_FOR_NEXT = 'the next run looks for it before sending again';

/**
 * Stops the batch when what accepted the upload has no job listing of the service's (see
 * WrongServiceError.acceptedByNonService). `error`: the look-up's failure.
 */
function stopOnForeignListing(engine: Engine, error: unknown): void {
  if (!listingPointsAtSetup(error)) return;
  engine.halt.stop(
    WrongServiceError.acceptedByNonService(listingAnswerWords(error), engine.wrongService.where),
  );
}

/**
 * With `--no-wait` nothing is waited for, so an upload accepted without a job id (a 202, which any
 * collector of POSTs answers) was the only sign of the service, and such a host was sent every file.
 * Until a listing of the jobs has come as one, each such upload takes part in one round of the
 * look-up (shared, as the waiting ones are), whose listing tells the service from what is not.
 */
async function lookOnceWithoutWaiting(engine: Engine, work: AcceptedWork): Promise<void> {
  if (engine.acceptedJobs.listed || engine.stop.aborted) return;
  try {
    await engine.acceptedJobs.find(work.uploadName, work.sinceMs, engine.clock.now());
  } catch (error) {
    stopOnForeignListing(engine, error);
  }
}

export async function collectAccepted(engine: Engine, work: AcceptedWork): Promise<void> {
  if (work.lost) {
    await collectLost(engine, work, work.lost);
    return;
  }
  const { recorder, clock } = engine;
  const { entry } = work;
  if (!engine.wait) {
    await lookOnceWithoutWaiting(engine, work);
    recorder.pending(entry, `${UNNAMED}; ${LOOKED_FOR_NEXT}`, undefined, true);
    return;
  }
  const deadlineMs = clock.now() + engine.waitTimeoutMs;
  recorder.begun(entry);
  recorder.progress.waiting++;
  recorder.changed();
  let lookUp;
  try {
    lookUp = await engine.acceptedJobs.find(work.uploadName, work.sinceMs, deadlineMs);
  } catch (error) {
    // Its job listing is not the service's: what accepted the upload is not the service either.
    stopOnForeignListing(engine, error);
    recorder.pending(
      entry,
      `${UNNAMED}; looking for it among the jobs failed: ${messageOf(error)}; ${LOOKED_FOR_NEXT}`,
    );
    return;
  } finally {
    recorder.progress.waiting--;
    recorder.changed();
  }
  if (engine.stop.aborted) {
    recorder.pending(entry, `${stoppedReason(engine)}; it was ${UNNAMED}: ${LOOKED_FOR_NEXT}`);
    return;
  }
  const found = lookUp.job;
  if (!found) {
    const waited = formatDuration(engine.waitTimeoutMs / 1000);
    // What its last look met may be why it was not found: the warning was said once, for the run.
    const met = lookUp.problems.map((problem) => `; its last look: ${problem}`).join('');
    recorder.pending(
      entry,
      `${UNNAMED}, not found among its jobs after ${waited} (--wait-timeout)${met}; ${LOOKED_FOR_NEXT}`,
    );
    return;
  }
  const job: CollectWork = { ...work, kind: 'collect', jobId: found.jobId, fresh: true };
  engine.log.debug(`${entry.display}: accepted without a job id, found as job ${job.jobId}; collecting it`);
  if (!(await journalSubmitted(engine, job))) return;
  await collectOne(engine, job, deadlineMs);
}

/**
 * What a lost upload's look met, after its reason: a look that failed, or what kept its last round
 * from seeing every recent job. Said as an accepted upload's pending line says it: a warning on stderr
 * (once a run) was all that told it, and a script reading the outcomes took the file for not found.
 */
function lostLookWords(lookUp: AcceptedLookUp | { failed: unknown }): string {
  if ('failed' in lookUp) return `; looking for its job failed: ${messageOf(lookUp.failed)}`;
  return lookUp.problems.map((problem) => `; its last look: ${problem}`).join('');
}

/**
 * An upload whose answer was lost: looked for among the jobs until the rest of the run is done (see
 * the top of this file). With --no-wait too: a job found is journaled `submitted`, and a later run
 * collects it.
 */
async function collectLost(
  engine: Engine,
  work: AcceptedWork,
  lost: NonNullable<AcceptedWork['lost']>,
): Promise<void> {
  const { recorder, acceptedJobs } = engine;
  const { entry } = work;
  // Not held while it waits: most such uploads made no job (a service failing every upload).
  work.releaseSpace?.();
  if (engine.stop.aborted || acceptedJobs.lostWaiting >= LOST_LOOKS_MAX) {
    recorder.failedUnrecorded(entry, lost.reason);
    return;
  }
  recorder.progress.waiting++;
  recorder.changed();
  // Joined at once, in the turn of the cap's check, so that uploads failing side by side never pass
  // it together; its first look is seconds away (LOST_FIRST_LOOK_MS).
  const looking = acceptedJobs.find(work.uploadName, work.sinceMs, lost.failedAtMs + engine.waitTimeoutMs, {
    firstLookMs: lost.failedAtMs + LOST_FIRST_LOOK_MS,
  });
  // Its failure is met below, once the line is written: not an unhandled rejection meanwhile.
  looking.catch(() => {});
  // Its line says so while it is looked for: `status` reads the journal, and called it being sent.
  // An output at its place now stood before its upload: this run publishes none before the look.
  await recorder.answerLost(work, noOutputAt(entry.output)).catch(() => {});
  engine.log.debug(`${entry.display}: its upload's answer was lost; looking for its job before the run ends`);
  let lookUp: AcceptedLookUp | { failed: unknown };
  try {
    lookUp = await looking;
  } catch (error) {
    lookUp = { failed: error };
    engine.log.debug(`${entry.display}: looking for the job of its lost upload failed: ${messageOf(error)}`);
  } finally {
    recorder.progress.waiting--;
    recorder.changed();
  }
  // Interrupted: pending, as every file the interrupt ends. Stopped by a failure (a refused token,
  // answers of something that is not the service): its own failure, as before it was looked for.
  if (engine.stop.aborted && !engine.halt.reason && !engine.tokenRefused()) {
    recorder.pending(entry, `${stoppedReason(engine)} while its job was looked for: ${lost.reason}`);
    return;
  }
  if (engine.stop.aborted) {
    recorder.failedUnrecorded(entry, lost.reason);
    return;
  }
  if ('failed' in lookUp || !lookUp.job) {
    recorder.failedUnrecorded(entry, lostAnswerReason(lost.error, lostLookWords(lookUp)));
    return;
  }
  const found = lookUp.job;
  const { releaseSpace: _released, lost: _lost, sinceMs: _since, ...carried } = work;
  const job: CollectWork = { ...carried, kind: 'collect', jobId: found.jobId, fresh: true };
  engine.log.info(
    `${entry.display}: its upload's answer was lost, but the service had made job ${job.jobId} of it; ${engine.wait ? 'collecting it' : 'a later run collects it'}`,
  );
  if (!(await journalSubmitted(engine, job, true))) return;
  await collectOne(engine, job);
}
