/**
 * Uploads the service accepted without naming their job (a 202 with no job id): each is looked for
 * among the service's jobs by its upload name, with the look-up that finds interrupted uploads
 * (reconcile.ts), in rounds that every such upload of the run shares. A round lists the jobs once and
 * reads the recent ones (created since the earliest waiting upload began, less the skew; at most
 * RECONCILE_MAX_READS), whatever the number of uploads waiting; a job whose content already lists
 * files is not read again, as its upload's name is there for good. Rounds follow the poll's backoff
 * (about 1 s growing to 30 s), started over when an upload joins, never closer than MIN_GAP_MS.
 * A listing refused for good (a 404, an answer that is not a listing: the setup, not a moment) ends
 * every wait with that error: rounds would meet it until `--wait-timeout`, two hours by default.
 * Any other problem of a round (a listing that failed for a moment, more recent jobs than the cap,
 * jobs that could not be read) is a warning once per kind a run, as a run can go on for hours
 * meeting it every round; an upload not found is told what its last round met.
 */
import { backoffDelay, failsForAMoment } from '../api/retry.js';
import { isNamed, type JobContentItem } from '../api/schemas.js';
import type { Clock } from '../clock.js';
import { messageOf } from './engine.js';
import { type FoundJob, type LookUpProblem, type ReconcileDeps, reconcile } from './reconcile.js';
import { RECONCILE_MAX_READS } from './recent-jobs.js';

const POLL_BASE_MS = 1000;
const POLL_CAP_MS = 30_000;
/** Rounds start at least this far apart, however many uploads join meanwhile. */
const MIN_GAP_MS = 2000;

const LOOKING = 'looking for uploads accepted without a job id';

/** What a round met, as said in a warning and in the reason of an upload not found. */
function problemText(problem: LookUpProblem): string {
  switch (problem.kind) {
    case 'listing':
      return messageOf(problem.error);
    case 'capped':
      return `only the ${RECONCILE_MAX_READS} oldest of the ${problem.recent} recent jobs are read`;
    case 'unreadable':
      return `could not read ${problem.count} job(s) (${messageOf(problem.error)})`;
  }
}

/** What comes of it, and what to do: said once a run, with the first problem of its kind. */
const OUTCOME: Record<LookUpProblem['kind'], string> = {
  listing: 'trying again each round, until found or --wait-timeout (not told again this run)',
  capped:
    'an upload whose job is among the others is not found: it stays pending, and the next run looks for it before sending it again (not told again this run)',
  unreadable: 'they are read again next round (not told again this run)',
};

/** What the look-up for one upload came to: its job, or none, with what its last round met. */
export interface AcceptedLookUp {
  job: FoundJob | undefined;
  /** What kept its last round from seeing every recent job (problemText); empty when nothing did. */
  problems: readonly string[];
}

interface Waiter {
  sinceMs: number;
  deadlineMs: number;
  problems: readonly string[];
  resolve: (found: AcceptedLookUp) => void;
  reject: (error: unknown) => void;
}

export type AcceptedJobsDeps = Pick<
  ReconcileDeps<string>,
  'listJobs' | 'jobContent' | 'isStop' | 'stop' | 'debug'
> & {
  clock: Clock;
  /** A warning line on stderr (shown with --quiet too). */
  warn: (message: string) => void;
};

export class AcceptedJobs {
  /** By upload name, unique to its input and attempt. */
  readonly #waiting = new Map<string, Waiter>();
  /** Contents that list files, by job id: held only while some upload waits. */
  readonly #read = new Map<string, JobContentItem[]>();
  /** Jobs given to an upload: never given to another. */
  readonly #claimed = new Set<string>();
  #attempt = 0;
  #lastRoundMs = Number.NEGATIVE_INFINITY;
  #wake = new AbortController();
  #running = false;
  /** The kinds of problem already told this run. */
  readonly #told = new Set<LookUpProblem['kind']>();
  /** Whether a round's listing of the jobs came as a listing: the service's jobs area answers. */
  #listed = false;

  /** Whether a listing of the jobs has come as one this run (see collectAccepted's --no-wait look). */
  get listed(): boolean {
    return this.#listed;
  }

  constructor(private readonly deps: AcceptedJobsDeps) {}

  /**
   * The job found for the upload `uploadName`, begun at `sinceMs`; none once `deadlineMs` has passed,
   * or at a stop. Rejects with the error of a listing refused for good.
   */
  find(uploadName: string, sinceMs: number, deadlineMs: number): Promise<AcceptedLookUp> {
    return new Promise((resolve, reject) => {
      this.#waiting.set(uploadName, { sinceMs, deadlineMs, problems: [], resolve, reject });
      this.#attempt = 0;
      this.#wake.abort();
      if (this.#running) return;
      this.#running = true;
      void this.#loop();
    });
  }

  async #loop(): Promise<void> {
    const { clock, stop } = this.deps;
    try {
      while (this.#waiting.size > 0 && !stop.aborted) {
        const gap = this.#lastRoundMs + MIN_GAP_MS - clock.now();
        if (gap > 0) await clock.sleep(gap, stop).catch(() => {});
        if (stop.aborted) break;
        this.#lastRoundMs = clock.now();
        await this.#round().catch((error: unknown) =>
          this.deps.debug(`a look among the jobs failed: ${String(error)}`),
        );
        this.#expire();
        if (this.#waiting.size === 0) break;
        this.#wake = new AbortController();
        const nearest = Math.min(...[...this.#waiting.values()].map((waiter) => waiter.deadlineMs));
        const delay = Math.min(
          nearest - clock.now(),
          backoffDelay(this.#attempt++, clock.random, POLL_BASE_MS, POLL_CAP_MS),
        );
        if (delay > 0) await clock.sleep(delay, AbortSignal.any([stop, this.#wake.signal])).catch(() => {});
      }
    } finally {
      // In the same turn as the last check of `#waiting`: an upload that joins after it starts a loop.
      this.#running = false;
      for (const waiter of this.#waiting.values())
        waiter.resolve({ job: undefined, problems: waiter.problems });
      this.#waiting.clear();
      this.#read.clear();
    }
  }

  /** Those whose wait is over leave, found nothing. */
  #expire(): void {
    const now = this.deps.clock.now();
    for (const [name, waiter] of this.#waiting) {
      if (waiter.deadlineMs > now) continue;
      this.#waiting.delete(name);
      waiter.resolve({ job: undefined, problems: waiter.problems });
    }
  }

  /** Every problem goes to the debug log; its first of a kind, a warning too. */
  #tell(problem: LookUpProblem): void {
    const text = problemText(problem);
    this.deps.debug(`${LOOKING}: ${text}`);
    if (this.#told.has(problem.kind)) return;
    this.#told.add(problem.kind);
    this.deps.warn(`${LOOKING}: ${text}; ${OUTCOME[problem.kind]}`);
  }

  async #round(): Promise<void> {
    const waiters = new Map(this.#waiting);
    const sinceMs = Math.min(...[...waiters.values()].map((waiter) => waiter.sinceMs));
    const { deps } = this;
    const problems: LookUpProblem[] = [];
    const found = await reconcile(
      { count: waiters.size, sinceMs },
      {
        ...deps,
        problem: (problem) => problems.push(problem),
        debug: (message) => deps.debug(`${LOOKING}: ${message}`),
        jobContent: async (jobId) => {
          const known = this.#read.get(jobId);
          if (known) return known;
          const items = await deps.jobContent(jobId);
          if (items.some(isNamed)) this.#read.set(jobId, items);
          return items;
        },
        // The names are unique to this run's uploads: only a job given to one already is passed over.
        namedInJournal: (jobIds) =>
          Promise.resolve(new Set([...jobIds].filter((jobId) => this.#claimed.has(jobId)))),
        inputsNamed: (names) =>
          Promise.resolve(
            [...waiters]
              .filter(([name]) => names.has(name))
              .map(([name, waiter]) => ({ key: name, uploadNames: [name], sinceMs: waiter.sinceMs })),
          ),
      },
    );
    // A listing that failed is a problem only when it did not stop the batch (reconcile.ts).
    const listing = problems.find((problem) => problem.kind === 'listing');
    if (!listing && !this.deps.stop.aborted) this.#listed = true;
    if (listing && !failsForAMoment(listing.error)) {
      for (const waiter of waiters.values()) waiter.reject(listing.error);
      for (const name of waiters.keys()) this.#waiting.delete(name);
      return;
    }
    for (const problem of problems) this.#tell(problem);
    const texts = problems.map(problemText);
    for (const waiter of waiters.values()) waiter.problems = texts;
    for (const [name, job] of found) {
      this.#claimed.add(job.jobId);
      this.#waiting.get(name)?.resolve({ job, problems: [] });
      this.#waiting.delete(name);
    }
  }
}
