/**
 * What a failed look at a job means for its file: a job of an earlier run that the service no longer
 * has (its file is sent again), a failure that asking again will not change, a job this run's upload
 * named that does not exist. The collect stage (collect.ts) acts on them.
 */
import { checkBaseUrlHint } from '../api/base-url-hints.js';
import { ApiError, NotFoundError } from '../api/errors.js';
import { LinkMissingError } from '../api/link-errors.js';
import { RETRYABLE_STATUSES } from '../api/retry.js';
import { type Engine, stoppedReason } from './engine.js';
import type { CollectWork } from './work.js';

/**
 * Looks at a job of an earlier run answered 404 in a row before it is taken for gone and its file sent
 * again: the second, at the poll's backoff, keeps one stray answer (a node behind a balancer that has
 * not seen the job yet) from costing a second redaction.
 */
export const GONE_LOOKS = 2;

/** A job of an earlier run that the service says does not exist: its file is to be sent again. */
export interface JobGone {
  kind: 'gone';
  /** The look's answer, as its error says it. */
  answer: string;
}

/** Whether a look's failure says the job of an earlier run does not exist (a 404 of the job itself). */
export function saysGone(work: CollectWork, error: unknown): boolean {
  return !work.fresh && error instanceof NotFoundError;
}

/**
 * A failure that will not change by asking again: the job itself is the problem. A link's host
 * without the result may only be behind the service's listing (link-tries.ts).
 */
export function isPermanent(error: unknown): boolean {
  if (error instanceof LinkMissingError) return false;
  return (
    error instanceof NotFoundError ||
    (error instanceof ApiError &&
      error.status !== undefined &&
      error.status >= 400 &&
      !RETRYABLE_STATUSES.has(error.status))
  );
}

/** What a job named by an upload of this run, and not found at its first look, says to do. */
export function namedJobMissing(engine: Engine): string {
  return `the upload's answer named this job, and it does not exist: ${checkBaseUrlHint(engine.client.baseUrlSource)}`;
}

/**
 * A job of an earlier run answered 404 twice: gone only once the service has been heard this run
 * (service-heard.ts); otherwise it keeps its `submitted` line, pending, and the next run looks again.
 */
export async function goneUnlessUnheard(
  engine: Engine,
  work: CollectWork,
  answer: string,
): Promise<JobGone | undefined> {
  const verdict = await engine.serviceHeard.mayBeGone(engine);
  if (verdict.kind === 'gone') return { kind: 'gone', answer };
  const { entry, jobId } = work;
  // Not the service's (the batch stopped), or the batch stopping meanwhile: the stop's reason.
  const why =
    verdict.kind === 'untold' && !engine.stop.aborted
      ? `${answer}, and whether the service answered it could not be told (its job listing failed: ${verdict.why})`
      : stoppedReason(engine);
  engine.recorder.pending(entry, `${why}; nothing was sent: a later run looks at job ${jobId} again`, jobId);
  return undefined;
}
