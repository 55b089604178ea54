/**
 * The jobs the look-up of interrupted uploads may read, kept as the service's listing streams by:
 * those created since the earliest of the uploads began (less RECONCILE_SKEW_MS; undated ones too)
 * that the journals do not name, the RECONCILE_MAX_READS oldest of them. Every other job is let go as
 * it comes, so a listing of 1,000,000 jobs costs what one of 1,000 does. Which jobs the journals name
 * is asked of them (they are read again: the run holds no job id) for a batch of recent jobs at a
 * time, while the listing waits.
 */
import type { JobSink } from '../api/client-types.js';
import type { Job } from '../api/schemas.js';
import { listedTimeMs } from '../api/timestamps.js';

/** Allowance for the difference between this machine's clock and the service's. */
export const RECONCILE_SKEW_MS = 5 * 60_000;

/** Job contents read at most, per run, to find interrupted uploads. */
export const RECONCILE_MAX_READS = 500;

/**
 * Recent jobs held before the journals are asked which they name. Each batch costs one read of the
 * journals; a listing has more recent jobs than this only where runs made that many jobs since the
 * upload was cut short (about 3 MB of jobs).
 */
export const JOURNAL_BATCH = 10_000;

/**
 * A job's or item's `created_at`, read as `jobs list` reads it: a date-time, or an epoch number
 * (1732166043, in seconds or milliseconds). Strictly: `7` or `job 5` is unreadable (so its job is
 * read, as undated), not 2001's nor 1970's.
 */
export function createdMs(text: string | undefined): number | undefined {
  return text ? listedTimeMs(text) : undefined;
}

interface Entry {
  job: Job;
  /** Its time; an undated job comes after every dated one. */
  ms: number;
  /** Its place in the listing: of two jobs of one time, the one listed first is read first. */
  order: number;
}

const oldestFirst = (a: Entry, b: Entry) => a.ms - b.ms || a.order - b.order;

/** What the look-up reads, and how many recent jobs it leaves unread past the cap. */
export interface RecentJobsFound {
  /** The jobs to read, the oldest first (undated ones last). */
  jobs: Job[];
  /** Recent jobs that the journals do not name, read or not. */
  recent: number;
}

/** A sink for the service's listing (a fresh one per attempt: a retried listing starts over). */
export class RecentJobs implements JobSink {
  /** Jobs the listing had. */
  listed = 0;
  /** Recent jobs the journals were asked about and do not name. */
  #unnamed = 0;
  /** The oldest of those, at most `maxReads`, oldest first. */
  #kept: Entry[] = [];
  /** Recent jobs the journals were not asked about yet. */
  #pending: Entry[] = [];
  /** The ids of the jobs held, so that a job listed twice is counted and read once. */
  readonly #held = new Set<string>();
  readonly #cutoffMs: number;
  /**
   * A journal that could not be read: told by `found`, not thrown into the listing (whose reader
   * would take it for a network failure and retry).
   */
  #failure: { error: unknown } | undefined;

  /**
   * `sinceMs`: when the earliest interrupted upload began; `namedInJournal`: which of these job ids
   * the journals name (never given to an interrupted input).
   */
  constructor(
    sinceMs: number,
    private readonly namedInJournal: (jobIds: ReadonlySet<string>) => Promise<ReadonlySet<string>>,
    private readonly maxReads = RECONCILE_MAX_READS,
    private readonly batch = JOURNAL_BATCH,
  ) {
    this.#cutoffMs = sinceMs - RECONCILE_SKEW_MS;
  }

  /** Jobs held now: what the look-up costs, whatever the listing's length. */
  get held(): number {
    return this.#kept.length + this.#pending.length;
  }

  add(job: Job): void {
    const order = this.listed++;
    if (this.#failure) return;
    const ms = createdMs(job.created_at) ?? Number.POSITIVE_INFINITY;
    if (ms < this.#cutoffMs || this.#held.has(job.job_id)) return;
    this.#held.add(job.job_id);
    this.#pending.push({ job, ms, order });
  }

  /** Awaited after each chunk of the listing: a full batch is checked against the journals. */
  async drain(): Promise<void> {
    if (this.#failure || this.#pending.length < this.batch) return;
    try {
      await this.#check();
    } catch (error) {
      this.#failure = { error };
      this.#pending = [];
      this.#kept = [];
      this.#held.clear();
    }
  }

  /** After the whole listing: the jobs to read. Throws the error of a journal that could not be read. */
  async found(): Promise<RecentJobsFound> {
    if (this.#failure) throw this.#failure.error;
    await this.#check();
    return { jobs: this.#kept.map((entry) => entry.job), recent: this.#unnamed };
  }

  /** Asks the journals about the pending jobs and keeps the oldest of those they do not name. */
  async #check(): Promise<void> {
    const pending = this.#pending;
    if (pending.length === 0) return;
    this.#pending = [];
    const named = await this.namedInJournal(new Set(pending.map((entry) => entry.job.job_id)));
    const unnamed = pending.filter((entry) => !named.has(entry.job.job_id));
    this.#unnamed += unnamed.length;
    const kept = [...this.#kept, ...unnamed].sort(oldestFirst);
    for (const id of [...named, ...kept.slice(this.maxReads).map(({ job }) => job.job_id)]) {
      this.#held.delete(id);
    }
    this.#kept = kept.slice(0, this.maxReads);
  }
}
