/**
 * What the shared look-up among the jobs (accepted-jobs.ts) says of a round's problem: whom it was
 * looking for (uploads accepted without a job id, uploads whose answer was lost, or both), what it met,
 * and what comes of it for them.
 */
import { withSetupHint } from '../api/upload-fate.js';
import { messageOf } from './engine.js';
import { RECONCILE_MAX_READS } from './recent-jobs.js';
import { type LookUpProblem, recentCount } from './reconcile.js';

/** Which uploads a round looked for: accepted without a job id, and whose answer was lost. */
export interface LookedFor {
  accepted: boolean;
  lost: boolean;
}

/** Whom a round was looking for, as a warning begins. */
export function lookingFor({ accepted, lost }: LookedFor): string {
  if (accepted && lost) return 'looking for uploads accepted without a job id or whose answer was lost';
  if (lost) return 'looking for uploads whose answer was lost (the service may have taken them)';
  return 'looking for uploads accepted without a job id';
}

/** What a round met, as said in a warning and in the reason of an upload not found. */
export function problemText(problem: LookUpProblem): string {
  switch (problem.kind) {
    case 'listing':
      return messageOf(problem.error);
    case 'capped':
      return `only the ${RECONCILE_MAX_READS} oldest of the ${recentCount(problem)} recent jobs are read`;
    case 'unreadable':
      return `could not read ${problem.count} job(s) (${messageOf(problem.error)})`;
  }
}

/** What comes of it, and what to do: said once a run, with the first problem of its kind. */
export function problemOutcome(kind: LookUpProblem['kind'], { accepted, lost }: LookedFor): string {
  switch (kind) {
    case 'listing':
      if (!lost) return 'trying again each round, until found or --wait-timeout (not told again this run)';
      return accepted
        ? 'trying again each round, until found, --wait-timeout or the end of the run (not told again this run)'
        : 'trying again each round, until found or the end of the run (not told again this run)';
    case 'capped':
      return lost
        ? 'an upload whose job is among the others is not found, and the next run looks for it before sending it again (not told again this run)'
        : 'an upload whose job is among the others is not found: it stays pending, and the next run looks for it before sending it again (not told again this run)';
    case 'unreadable':
      return 'they are read again next round (not told again this run)';
  }
}

/**
 * The reason of an upload whose answer was lost (a 504, a connection dropped after the request went
 * out), as its outcome says it: with what the look for its job met (`look`), before the setup's hint,
 * which ends it as what to do.
 */
export function lostAnswerReason(error: unknown, look = ''): string {
  return withSetupHint(
    `${messageOf(error)}; the service may have taken it: the next run looks for its job before sending again${look}`,
    error,
  );
}
