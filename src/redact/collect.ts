/**
 * The collect stage: an asynchronous job is polled (about 1 s growing to 30 s, with jitter) without
 * holding an upload slot, and its result downloaded, verified and written like a synchronous one. Its
 * result needs room on the output's disk as an upload's does (free-space.ts).
 */
import { dirname } from 'node:path';
import { failsEveryRequest, RateLimitError } from '../api/errors.js';
import { LinkMissingError } from '../api/link-errors.js';
import { backoffDelay } from '../api/retry.js';
import { firstLookPointsAtSetup } from '../api/upload-fate.js';
import { checkBaseUrlHint } from '../api/base-url-hints.js';
import { LocalFsError } from '../fs/errors.js';
import { type Engine, isStopping, messageOf, stoppedReason } from './engine.js';
import { formatDuration } from '../output/format.js';
import { firstLook, lookAtJob } from './first-look.js';
import { jobResultNeed } from './free-space.js';
import { resultLink, saveResult } from './job-result.js';
import { LinkTries, linkMissesNote } from './link-tries.js';
import {
  GONE_LOOKS,
  goneUnlessUnheard,
  type JobGone,
  isPermanent,
  namedJobMissing,
  saysGone,
} from './look-failures.js';
import { pickResult } from './pick-result.js';
import { probeFile } from './probe.js';
import { ResultRejectedError } from './result-rejected.js';
import type { CollectWork } from './work.js';
import { WrongServiceError } from './wrong-service.js';

const POLL_BASE_MS = 1000;
const POLL_CAP_MS = 30_000;
const POLL_MIN_MS = 500;
/** Consecutive failed polls of one job (after the client's own retries) before it is left pending. */
const MAX_POLL_FAILURES = 8;
/**
 * Claims room for the result of an earlier run's job (one of this run holds what its upload claimed),
 * estimated as its upload's was. Where there is none, the job is not collected and stays pending, and
 * the batch stops as on a full disk: its result could not have been saved.
 */
function claimRoom(engine: Engine, work: CollectWork, durationSec: number): (() => void) | undefined {
  const need = jobResultNeed(work, durationSec, engine.tolerance);
  const claim = engine.space.claim(dirname(work.entry.output), need, work.entry.display);
  if (typeof claim === 'function') return claim;
  engine.halt.stop(claim);
  engine.recorder.pending(
    work.entry,
    `${stoppedReason(engine)}; job ${work.jobId} is collected by a later run`,
    work.jobId,
  );
  return undefined;
}

/**
 * Waits for one job, then downloads, verifies and writes its result. `deadlineMs`: when its wait
 * ends, if it began before the job was known (an upload accepted without naming it). Resolves with
 * JobGone, and no outcome, when a job of an earlier run no longer exists: the caller sends the file.
 */
export async function collectOne(
  engine: Engine,
  work: CollectWork,
  deadlineMs?: number,
): Promise<JobGone | undefined> {
  const { recorder } = engine;
  const { entry, jobId } = work;
  if (work.fresh && !engine.wait) {
    // Not found at the look a --no-wait run makes (first-look.ts): kept submitted, as the file was sent.
    const notFound = work.notFoundAtFirstLook;
    const reason =
      notFound === undefined
        ? `submitted as job ${jobId}; a later run collects it`
        : `submitted as job ${jobId}, which its first look did not find (${notFound}): ${checkBaseUrlHint(engine.client.baseUrlSource)}; a later run looks at it again`;
    recorder.pending(entry, reason, jobId);
    return undefined;
  }
  let durationSec = work.durationSec;
  if (durationSec === undefined) {
    // An older journal: the input is measured again to know what its result must last.
    const probe = await probeFile(entry.input, engine.limits);
    if (!probe.ok) {
      await recorder.failed(
        entry,
        work.identity,
        `job ${jobId}: the input cannot be measured to verify its result (${probe.reason})`,
        jobId,
      );
      return undefined;
    }
    durationSec = probe.durationSec;
  }
  let releaseSpace: (() => void) | undefined;
  if (!work.releaseSpace) {
    releaseSpace = claimRoom(engine, work, durationSec);
    if (!releaseSpace) return undefined;
  }
  recorder.begun(entry);
  recorder.progress.waiting++;
  recorder.changed();
  try {
    return await poll(engine, work, durationSec, deadlineMs ?? engine.clock.now() + engine.waitTimeoutMs);
  } finally {
    releaseSpace?.();
    recorder.progress.waiting--;
    recorder.changed();
  }
}

/**
 * A job left when the batch stops: pending, collected by a later run; but a job of this run not yet
 * seen, when the batch stopped on answers of something that is not the service, was named by that
 * thing and exists nowhere: failed, so that the next run sends its file again.
 */
async function leftByStop(engine: Engine, work: CollectWork, seen: boolean): Promise<void> {
  const { entry, jobId } = work;
  if (!seen && engine.halt.reason instanceof WrongServiceError) {
    await engine.recorder.failed(
      entry,
      work.identity,
      `job ${jobId} was named by something that is not the Voice Redaction Service and was not looked at; the next run sends the file again`,
      jobId,
    );
    return;
  }
  engine.recorder.pending(entry, `${stoppedReason(engine)}; job ${jobId} is collected by a later run`, jobId);
}

/**
 * A job left pending after tries of its link that met no result in this run: its `submitted` line
 * is journaled again with the count, from which the next run goes on (link-tries.ts).
 */
async function keepLinkMisses(engine: Engine, work: CollectWork, linkTries: LinkTries): Promise<void> {
  if (linkTries.missedHere) await engine.recorder.linkMissed(work, linkTries.misses);
}

async function poll(
  engine: Engine,
  work: CollectWork,
  durationSec: number,
  deadline: number,
): Promise<JobGone | undefined> {
  const { recorder, clock } = engine;
  const { entry, jobId } = work;
  let attempt = 0;
  let failures = 0;
  let lastError: unknown;
  let goneLooks = 0;
  const linkTries = new LinkTries(work.linkMisses);
  // Whether the job has been seen: until then, a job id of this run's upload may be a wrong host's.
  let seen = !work.fresh;
  for (;;) {
    // Whether the request under way is the service's (not the signed URL's, which may be another host).
    let toService = true;
    if (engine.stop.aborted) {
      await leftByStop(engine, work, seen);
      return undefined;
    }
    try {
      // Its first look counts toward the stop for a host that is not the service (first-look.ts).
      const content = await (seen ? lookAtJob(engine, jobId) : firstLook(engine, jobId));
      seen = true;
      goneLooks = 0;
      const found = pickResult(content, work.uploadName);
      // A poll under way at an interrupt starts no download (the interrupt starts nothing new): the
      // job stays pending, as the interrupt said. Before, its result was fetched after the interrupt.
      if (found && engine.stop.aborted) {
        recorder.pending(entry, `${stoppedReason(engine)}; job ${jobId} is collected by a later run`, jobId);
        return undefined;
      }
      if (found) {
        const url = await resultLink(engine, jobId, found.file_name);
        // A refused link (LinkRefusedError) is not permanent: the next poll asks for a new one; nor,
        // up to LINK_TRIES, is a link whose host has no result yet (LinkMissingError).
        toService = false;
        await saveResult(engine, work, url, durationSec);
        return undefined;
      }
      failures = 0;
    } catch (error) {
      if (error instanceof LocalFsError) {
        // The result is still the service's to give: journaled failed, the next run sent the file
        // again (a full disk cost a second redaction); kept submitted, the next run collects it.
        if (error.stopsBatch) engine.halt.stop(error);
        await engine.outputFolder.forgetWritable(entry.outputRel);
        recorder.pending(entry, `job ${jobId}: ${error.message}; a later run collects it`, jobId);
        return undefined;
      }
      if (error instanceof ResultRejectedError) {
        // A broken result is never done: the journal says failed, and a re-run sends the file again.
        await recorder.failed(entry, work.identity, `job ${jobId}: ${error.message}`, jobId);
        return undefined;
      }
      if (isStopping(engine, error)) {
        recorder.pending(entry, `${stoppedReason(engine)}; job ${jobId} is collected by a later run`, jobId);
        return undefined;
      }
      if (!seen && firstLookPointsAtSetup(error)) {
        await recorder.failed(entry, work.identity, `${messageOf(error)}; ${namedJobMissing(engine)}`, jobId);
        return undefined;
      }
      if (error instanceof LinkMissingError) {
        const spent = linkTries.missed(error);
        if (spent !== undefined) {
          await recorder.failed(entry, work.identity, spent, jobId);
          return undefined;
        }
        if (!engine.wait) {
          // A run that only looks (--no-wait) makes no second try: a later run gets the tries, and
          // the journal counts this one, so that the tries run out over runs as within one.
          await keepLinkMisses(engine, work, linkTries);
          const reason = `job ${jobId}: ${messageOf(error)}; ${linkMissesNote(linkTries.misses)} (it may not have reached the link yet): a later run tries again`;
          recorder.pending(entry, reason, jobId);
          return undefined;
        }
      }
      if (saysGone(work, error)) {
        goneLooks++;
        if (goneLooks >= GONE_LOOKS) return goneUnlessUnheard(engine, work, messageOf(error));
        engine.log.debug(`job ${jobId}: ${messageOf(error)}; looking again before sending the file again`);
      } else if (isPermanent(error)) {
        await recorder.failed(entry, work.identity, messageOf(error), jobId);
        return undefined;
      }
      if (error instanceof RateLimitError) {
        // Only a throttle that gave up comes out of the client (past --max-throttle-wait): every later
        // poll of this run is refused the same way, so polling on only held the run for minutes.
        await keepLinkMisses(engine, work, linkTries);
        recorder.pending(
          entry,
          `job ${jobId} could not be checked: ${messageOf(error)}; a later run collects it`,
          jobId,
        );
        return undefined;
      }
      if (toService && failsEveryRequest(error)) {
        // A service never reached, or one whose certificate is not trusted, fails every poll of every
        // job alike: the batch stops as it does for an upload (send.ts), rather than each job polling
        // on for minutes in turn. The file host of a signed URL is another matter: that job's alone.
        engine.halt.stop(error);
        recorder.pending(entry, `job ${jobId} could not be checked: ${messageOf(error)}`, jobId);
        return undefined;
      }
      failures++;
      lastError = error;
      engine.log.debug(`job ${jobId}: ${messageOf(error)}`);
      if (failures >= MAX_POLL_FAILURES) {
        await keepLinkMisses(engine, work, linkTries);
        recorder.pending(entry, `job ${jobId} could not be checked: ${messageOf(error)}`, jobId);
        return undefined;
      }
    }
    // With --no-wait too, a job answered 404 is looked at again: one look cannot tell it gone.
    if (!engine.wait && goneLooks === 0) {
      recorder.pending(entry, `job ${jobId} is still processing; a later run collects it`, jobId);
      return undefined;
    }
    const remaining = deadline - clock.now();
    if (remaining <= 0) {
      const why = lastError && failures > 0 ? ` (last error: ${messageOf(lastError)})` : '';
      await keepLinkMisses(engine, work, linkTries);
      recorder.pending(
        entry,
        `job ${jobId} not finished after ${formatDuration(engine.waitTimeoutMs / 1000)} (--wait-timeout); a later run collects it${why}`,
        jobId,
      );
      return undefined;
    }
    const delay = Math.min(
      remaining,
      Math.max(POLL_MIN_MS, backoffDelay(attempt++, clock.random, POLL_BASE_MS, POLL_CAP_MS)),
    );
    await clock.sleep(delay, engine.stop).catch(() => {});
  }
}
