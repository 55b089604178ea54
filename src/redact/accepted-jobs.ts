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
 * Uploads whose answer was lost (a gateway's 504, a connection dropped after the request went out)
 * are looked for in the same rounds, so that their jobs are collected in the run rather than a night
 * later; they call for rounds of their own only a few seconds after their failure and once the rest
 * of the run is done (see find).
 */
import { backoffDelay, failsForAMoment } from '../api/retry.js';
import { isNamed, type JobContentItem } from '../api/schemas.js';
import type { Clock } from '../clock.js';
import { type LookedFor, lookingFor, problemOutcome, problemText } from './look-up-words.js';
import { type FoundJob, type LookUpProblem, type ReconcileDeps, reconcile } from './reconcile.js';

const POLL_BASE_MS = 1000;
const POLL_CAP_MS = 30_000;
/** Rounds start at least this far apart, however many uploads join meanwhile. */
const MIN_GAP_MS = 2000;

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
  /** An upload whose answer was lost: looked for until the rest of the run is done (see find). */
  lost?: { firstLookMs: number; looked: boolean };
}

export type AcceptedJobsDeps = Pick<
  ReconcileDeps<string>,
  'listJobs' | 'jobContent' | 'isStop' | 'stop' | 'debug'
> & {
  clock: Clock;
  /** A warning line on stderr (shown with --quiet too). */
  warn: (message: string) => void;
  /** The files of the run without an outcome yet (none when absent); see settled(). */
  unsettled?: () => number;
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
  /** When the uploads accepted without a job id are next looked for (the poll's backoff). */
  #acceptedDueMs = Number.POSITIVE_INFINITY;
  #wake = new AbortController();
  #running = false;
  /** The kinds of problem already told this run. */
  readonly #told = new Set<LookUpProblem['kind']>();
  /** Whether a round's listing of the jobs came as a listing: the service's jobs area answers. */
  #listed = false;

  /** The uploads whose answer was lost that are waiting to be found. */
  get lostWaiting(): number {
    let lost = 0;
    for (const waiter of this.#waiting.values()) if (waiter.lost) lost++;
    return lost;
  }

  /** Whether a listing of the jobs has come as one this run (see collectAccepted's --no-wait look). */
  get listed(): boolean {
    return this.#listed;
  }

  constructor(private readonly deps: AcceptedJobsDeps) {}

  /**
   * The job found for the upload `uploadName`, begun at `sinceMs`; none once `deadlineMs` has passed,
   * or at a stop. Rejects with the error of a listing refused for good.
   *
   * `lost`: an upload whose answer was lost (a 504, a connection dropped after the request went out),
   * which the service may have taken or not. It calls for no round of its own until `firstLookMs`
   * (the service may make its job a moment after the gateway gave up), and none while the rest of
   * the run goes on (it takes part in those made for others meanwhile); it is given up after the
   * first round that begins at or after `firstLookMs` once it is all the run has left: one listing
   * beyond the rest of the run.
   */
  find(
    uploadName: string,
    sinceMs: number,
    deadlineMs: number,
    lost?: { firstLookMs: number },
  ): Promise<AcceptedLookUp> {
    return new Promise((resolve, reject) => {
      this.#waiting.set(uploadName, {
        sinceMs,
        deadlineMs,
        problems: [],
        resolve,
        reject,
        ...(lost ? { lost: { firstLookMs: lost.firstLookMs, looked: false } } : {}),
      });
      if (!lost) {
        this.#attempt = 0;
        this.#acceptedDueMs = Number.NEGATIVE_INFINITY;
      }
      this.#wake.abort();
      if (this.#running) return;
      this.#running = true;
      void this.#loop();
    });
  }

  /** Told after each file's outcome: the uploads whose answer was lost may be all the run has left. */
  settled(): void {
    if (this.#waiting.size > 0 && this.#restDone()) this.#wake.abort();
  }

  /** Whether the only files of the run without an outcome are uploads whose answer was lost, waiting. */
  #restDone(): boolean {
    const lost = this.lostWaiting;
    return lost > 0 && (this.deps.unsettled?.() ?? 0) <= lost;
  }

  /** When the next round is due: the accepted uploads' backoff, a lost one's first or last look, a deadline. */
  #dueMs(): number {
    const restDone = this.#restDone();
    let due = Number.POSITIVE_INFINITY;
    for (const waiter of this.#waiting.values()) {
      due = Math.min(due, waiter.deadlineMs);
      if (!waiter.lost) due = Math.min(due, this.#acceptedDueMs);
      else if (!waiter.lost.looked || restDone) due = Math.min(due, waiter.lost.firstLookMs);
    }
    return Math.max(due, this.#lastRoundMs + MIN_GAP_MS);
  }

  /** Until `ms`, or sooner when an upload joins or a file settles (`wake`), or at a stop. */
  async #sleepUntil(ms: number, signal: AbortSignal): Promise<void> {
    if (Number.isFinite(ms)) {
      await this.deps.clock.sleep(ms - this.deps.clock.now(), signal).catch(() => {});
      return;
    }
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  async #loop(): Promise<void> {
    const { clock, stop } = this.deps;
    try {
      while (this.#waiting.size > 0 && !stop.aborted) {
        // Made before the due time is reckoned: a join or an outcome after it wakes this sleep.
        this.#wake = new AbortController();
        const dueMs = this.#dueMs();
        if (dueMs > clock.now()) {
          await this.#sleepUntil(dueMs, AbortSignal.any([stop, this.#wake.signal]));
          continue;
        }
        const startedMs = clock.now();
        const restDone = this.#restDone();
        this.#lastRoundMs = startedMs;
        await this.#round().catch((error: unknown) =>
          this.deps.debug(`a look among the jobs failed: ${String(error)}`),
        );
        this.#acceptedDueMs =
          clock.now() + backoffDelay(this.#attempt++, clock.random, POLL_BASE_MS, POLL_CAP_MS);
        this.#expire(startedMs, restDone);
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

  /**
   * Those whose wait is over leave, found nothing: past their deadline, or lost ones looked for in a
   * round that began after their first look was due, when they were all the run had left.
   */
  #expire(roundStartedMs: number, restDone: boolean): void {
    const now = this.deps.clock.now();
    for (const [name, waiter] of this.#waiting) {
      const { lost } = waiter;
      if (lost && roundStartedMs >= lost.firstLookMs) lost.looked = true;
      if (waiter.deadlineMs > now && !(lost?.looked && restDone)) continue;
      this.#waiting.delete(name);
      waiter.resolve({ job: undefined, problems: waiter.problems });
    }
  }

  /** Every problem goes to the debug log; its first of a kind, a warning too. */
  #tell(problem: LookUpProblem, lookedFor: LookedFor): void {
    const text = problemText(problem);
    const looking = lookingFor(lookedFor);
    this.deps.debug(`${looking}: ${text}`);
    if (this.#told.has(problem.kind)) return;
    this.#told.add(problem.kind);
    this.deps.warn(`${looking}: ${text}; ${problemOutcome(problem.kind, lookedFor)}`);
  }

  async #round(): Promise<void> {
    const waiters = new Map(this.#waiting);
    const sinceMs = Math.min(...[...waiters.values()].map((waiter) => waiter.sinceMs));
    const { deps } = this;
    const lookedFor: LookedFor = {
      accepted: [...waiters.values()].some((waiter) => !waiter.lost),
      lost: [...waiters.values()].some((waiter) => waiter.lost),
    };
    const problems: LookUpProblem[] = [];
    const found = await reconcile(
      { count: waiters.size, sinceMs },
      {
        ...deps,
        now: () => deps.clock.now(),
        problem: (problem) => problems.push(problem),
        debug: (message) => deps.debug(`${lookingFor(lookedFor)}: ${message}`),
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
    for (const problem of problems) this.#tell(problem, lookedFor);
    const texts = problems.map(problemText);
    for (const waiter of waiters.values()) waiter.problems = texts;
    for (const [name, job] of found) {
      this.#claimed.add(job.jobId);
      this.#waiting.get(name)?.resolve({ job, problems: [] });
      this.#waiting.delete(name);
    }
  }
}
