/**
 * An upload the service accepted without naming its job: its job is looked for among the service's
 * jobs by the upload's name (accepted-jobs.ts), within the wait of an asynchronous job
 * (`--wait-timeout`, from its acceptance), then journaled `submitted` and collected as any job. Not
 * found by then, or with `--no-wait`, it is pending: its journal keeps `uploading`, so the next run
 * looks for its job (interrupted-look-up.ts) before sending it again.
 */
import { formatDuration } from '../output/format.js';
import { collectOne } from './collect.js';
import { type Engine, messageOf, stoppedReason } from './engine.js';
import { journalSubmitted } from './send.js';
import type { AcceptedWork, CollectWork } from './work.js';
import { listingAnswerWords, listingPointsAtSetup, WrongServiceError } from './wrong-service.js';

const UNNAMED = 'accepted by the service without naming its job';
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
