/**
 * A batch's progress counts, and their snapshots for the report: at most one every
 * PROGRESS_INTERVAL_MS, yet the last change of a burst always reaches it, after the interval.
 */
import type { Clock } from '../clock.js';
import type { InFlight } from '../interrupt.js';
import { FileTimes } from './file-times.js';
import type { Outcome, Progress } from './outcome.js';
import type { PlanEntry } from './plan.js';

/** Progress updates reach the report at most this often (the last of a burst always does, after it). */
const PROGRESS_INTERVAL_MS = 100;

export interface ProgressDeps {
  clock: Pick<Clock, 'now'>;
  onProgress?: ((progress: Progress) => void) | undefined;
  total: number;
}

export class ProgressCounts {
  readonly progress: Progress;
  readonly #times = new FileTimes();
  #lastProgress = 0;
  #trailing: NodeJS.Timeout | undefined;
  /** Told after each outcome is counted (see unsettled). */
  onCounted: (() => void) | undefined;

  constructor(private readonly progressDeps: ProgressDeps) {
    this.progress = {
      total: progressDeps.total,
      done: 0,
      skipped: 0,
      rejected: 0,
      failed: 0,
      pending: 0,
      queued: progressDeps.total,
      inFlight: 0,
      waiting: 0,
      underWay: 0,
      bytesSent: 0,
      bytesTotal: 0,
      startedAt: progressDeps.clock.now(),
    };
  }

  /** What an interrupt is about now: the uploads under way and the jobs waited for. */
  inFlight(): InFlight {
    return { transfers: this.progress.inFlight, jobs: this.progress.waiting };
  }

  /**
   * The one home of what counts as an upload in flight, for an interrupt and the live line alike: its
   * request under way, bytes maybe on the wire. One waiting at the throttle gate or between attempts
   * is not: a first interrupt gives it up at once.
   */
  requestUnderWay(underWay: boolean): void {
    this.progress.inFlight += underWay ? 1 : -1;
    this.changed();
  }

  /** Tells the report of a change (throttled; `force` for the last one). */
  changed(force = false): void {
    const p = this.progress;
    const finished = p.done + p.skipped + p.rejected + p.failed + p.pending;
    p.queued = Math.max(0, p.total - finished - p.inFlight - p.waiting);
    const now = this.progressDeps.clock.now();
    const since = now - this.#lastProgress;
    if (force || since >= PROGRESS_INTERVAL_MS) {
      this.#report(now);
      return;
    }
    // A change dropped here may be the last of a burst (a job collected, then a long wait): without
    // a snapshot after the window, the live line would show stale counts until the next change.
    this.#trailing ??= setTimeout(
      () => this.#report(this.progressDeps.clock.now()),
      Math.max(0, PROGRESS_INTERVAL_MS - since),
    ).unref();
  }

  #report(now: number): void {
    clearTimeout(this.#trailing);
    this.#trailing = undefined;
    this.#lastProgress = now;
    this.progressDeps.onProgress?.({ ...this.progress, ...this.#times.snapshot() });
  }

  /**
   * The files of the run without an outcome yet: the look for uploads whose fate is unknown ends once
   * they are the only ones left (accepted-jobs.ts).
   */
  get unsettled(): number {
    const p = this.progress;
    return p.total - (p.done + p.skipped + p.rejected + p.failed + p.pending);
  }

  /** A file's upload starts, or this run starts waiting for its job: the ETA counts its time from here. */
  begun(entry: PlanEntry): void {
    this.#times.begun(entry.input, this.progressDeps.clock.now());
  }

  /** A file's outcome: counted, and its time taken toward a file's typical one. */
  protected counted(entry: PlanEntry, status: Outcome['status']): void {
    this.#times.settled(entry.input, this.progressDeps.clock.now());
    if (
      status === 'done' ||
      status === 'skipped' ||
      status === 'rejected' ||
      status === 'failed' ||
      status === 'pending'
    ) {
      this.progress[status]++;
    }
    const p = this.progress;
    this.changed(p.done + p.skipped + p.rejected + p.failed + p.pending >= p.total);
    this.onCounted?.();
  }
}
