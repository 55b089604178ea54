/**
 * The jobs the look-up of interrupted uploads may read, kept as the service's listing streams by:
 * those made since the earliest of the uploads began (look-up-window.ts; undated ones too) that the
 * journals do not name, the RECONCILE_MAX_READS oldest of them. Every other job is let go as it comes,
 * so a listing of 1,000,000 jobs costs what one of 1,000 does. Which jobs the journals name is asked
 * of them (they are read again: the run holds no job id) for a batch of recent jobs at a time, while
 * the listing waits.
 *
 * Zone-less times are kept apart from the others: their window's start rises as the listing shows
 * newer ones, and a job kept under a lower start is let go. Past their cap, the RECONCILE_MAX_READS
 * oldest and the JOURNAL_BATCH newest are kept, those between let go: the oldest are what is read
 * where the start does not move (a listing newest first), the newest where it does (a listing oldest
 * first lists the window's own jobs last, after jobs a later start passes). Letting go of the newest
 * alone lost every job listed after a burst of jobs long before the upload, the upload's own too.
 * Of jobs with a zone, whose window is fixed, the newest are let go; so that what is read stays the
 * oldest of the window, a job listed after one let go for the cap and not older than it is let go too.
 */
import type { JobSink } from '../api/client-types.js';
import type { Job } from '../api/schemas.js';
import { type ListedTime, listedTime } from '../api/timestamps.js';
import { LetGoTimes } from './let-go-times.js';
import { LookUpWindow } from './look-up-window.js';

export { RECONCILE_SKEW_MS } from './look-up-window.js';

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
export function createdTime(text: string | undefined): ListedTime | undefined {
  return text ? listedTime(text) : undefined;
}

interface Entry {
  job: Job;
  time: ListedTime | undefined;
  /** Its time's reading; an undated job comes after every dated one. */
  ms: number;
  /** Its place in the listing: of two jobs of one time, the one listed first is read first. */
  order: number;
}

const oldestFirst = (a: Entry, b: Entry) => a.ms - b.ms || a.order - b.order;

/** The kept jobs of one kind of time (with a zone or undated; zone-less), and those let go for the cap. */
class Shelf {
  /** At most `capacity`, oldest first. */
  kept: Entry[] = [];
  /** The oldest job let go for the cap, where the newest are let go (a fixed window's start). */
  cutFrom: Entry | undefined;
  /**
   * The times of the recent jobs let go for the cap: a zone-less one let go under a lower start of
   * its window is no longer counted once the start passes it (it was counted, and the warning said
   * 436 jobs were made since the upload began where 86 were).
   */
  readonly cut = new LetGoTimes();

  /**
   * Past `capacity`, the `oldestKept` oldest and the rest newest are kept (the header says why); with
   * `oldestKept` the whole capacity, the newest are let go.
   */
  constructor(
    readonly capacity: number,
    readonly oldestKept = capacity,
  ) {}
}

/** What the look-up reads, and how many recent jobs it leaves unread past the cap. */
export interface RecentJobsFound {
  /** The jobs to read, the oldest first (undated ones last). */
  jobs: Job[];
  /** Recent jobs that the journals do not name, read or not: at most this many. */
  recent: number;
  /**
   * At least this many: fewer than `recent` only where a zone-less job let go for the cap has a time
   * too near the window's start to say on which side it is (let-go-times.ts).
   */
  recentAtLeast: number;
}

export interface RecentJobsOptions {
  /** This machine's clock, in ms (when each job is received: look-up-window.ts). */
  now?: () => number;
  maxReads?: number;
  batch?: number;
}

/** A sink for the service's listing (a fresh one per attempt: a retried listing starts over). */
export class RecentJobs implements JobSink {
  /** Jobs the listing had. */
  listed = 0;
  /** Which times are recent: read by the match of uploads to jobs too (reconcile.ts). */
  readonly window = new LookUpWindow();
  readonly #zoned: Shelf;
  /**
   * Up to the cap's and a batch's zone-less jobs, the oldest and the newest (the header says why). The
   * read ones are cut to the cap once the listing is over.
   */
  readonly #zoneless: Shelf;
  /** Recent jobs the journals were not asked about yet. */
  #pending: Entry[] = [];
  /** The ids of the jobs held, so that a job listed twice is counted and read once. */
  readonly #held = new Set<string>();
  readonly #now: () => number;
  readonly #maxReads: number;
  readonly #batch: number;
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
    private readonly sinceMs: number,
    private readonly namedInJournal: (jobIds: ReadonlySet<string>) => Promise<ReadonlySet<string>>,
    { now = Date.now, maxReads = RECONCILE_MAX_READS, batch = JOURNAL_BATCH }: RecentJobsOptions = {},
  ) {
    this.#now = now;
    this.#maxReads = maxReads;
    this.#batch = batch;
    this.#zoned = new Shelf(maxReads);
    this.#zoneless = new Shelf(maxReads + batch, maxReads);
  }

  /** Jobs held now: what the look-up costs, whatever the listing's length. */
  get held(): number {
    return this.#zoned.kept.length + this.#zoneless.kept.length + this.#pending.length;
  }

  add(job: Job): void {
    const order = this.listed++;
    if (this.#failure) return;
    const time = createdTime(job.created_at);
    this.window.see(time, this.#now());
    const entry = { job, time, ms: time?.ms ?? Number.POSITIVE_INFINITY, order };
    if (!this.#recent(entry) || this.#held.has(job.job_id)) return;
    this.#held.add(job.job_id);
    this.#pending.push(entry);
  }

  /** Awaited after each chunk of the listing: a full batch is checked against the journals. */
  async drain(): Promise<void> {
    if (this.#failure || this.#pending.length < this.#batch) return;
    try {
      await this.#check();
    } catch (error) {
      this.#failure = { error };
      this.#pending = [];
      this.#zoned.kept = [];
      this.#zoneless.kept = [];
      this.#held.clear();
    }
  }

  /** After the whole listing: the jobs to read. Throws the error of a journal that could not be read. */
  async found(): Promise<RecentJobsFound> {
    if (this.#failure) throw this.#failure.error;
    await this.#check();
    const shelves = [this.#zoned, this.#zoneless];
    const madeAfter = (entry: Entry) =>
      this.window.madeAfterMs(entry.time, this.sinceMs) ?? Number.POSITIVE_INFINITY;
    // Of two kinds of time, by when each was made as its time tells (undated last, as listed).
    const oldest = (a: Entry, b: Entry) => madeAfter(a) - madeAfter(b) || a.order - b.order;
    // Nothing past a job let go for the cap, of either kind: what is read is the window's oldest.
    const lost = shelves.flatMap((shelf) => (shelf.cutFrom ? [shelf.cutFrom] : []));
    const jobs = shelves
      .flatMap((shelf) => shelf.kept)
      .filter((entry) => lost.every((one) => oldest(entry, one) < 0))
      .sort(oldest)
      .slice(0, this.#maxReads)
      .map((entry) => entry.job);
    const kept = shelves.reduce((sum, shelf) => sum + shelf.kept.length, 0);
    const zonelessStart = this.window.startMs(true, this.sinceMs) ?? Number.NEGATIVE_INFINITY;
    return {
      jobs,
      recent: kept + this.#zoned.cut.total + this.#zoneless.cut.total,
      recentAtLeast: kept + this.#zoned.cut.total + this.#zoneless.cut.atLeast(zonelessStart),
    };
  }

  /** Whether a job may be one made since the upload began, by what the listing has shown so far. */
  #recent(entry: Entry): boolean {
    return this.window.maySince(entry.time, this.sinceMs);
  }

  #shelfOf(entry: Entry): Shelf {
    return entry.time?.zoneless ? this.#zoneless : this.#zoned;
  }

  /** Lets go of the zone-less jobs kept under a lower start of their window than the listing shows now. */
  #prune(): void {
    const shelf = this.#zoneless;
    const start = this.window.startMs(true, this.sinceMs) ?? Number.NEGATIVE_INFINITY;
    const gone = shelf.kept.filter((entry) => entry.ms < start);
    for (const entry of gone) this.#held.delete(entry.job.job_id);
    if (gone.length > 0) shelf.kept = shelf.kept.filter((entry) => entry.ms >= start);
    // A job let go for the cap that the window no longer reaches is no recent job.
    shelf.cut.dropBefore(start);
  }

  /** Asks the journals about the pending jobs and keeps the oldest of those they do not name. */
  async #check(): Promise<void> {
    this.#prune();
    const pending = this.#pending.filter((entry) => this.#recent(entry));
    for (const entry of this.#pending) if (!this.#recent(entry)) this.#held.delete(entry.job.job_id);
    this.#pending = [];
    if (pending.length === 0) return;
    const named = await this.namedInJournal(new Set(pending.map((entry) => entry.job.job_id)));
    for (const id of named) this.#held.delete(id);
    for (const entry of pending.filter((one) => !named.has(one.job.job_id))) {
      this.#shelfOf(entry).kept.push(entry);
    }
    for (const shelf of [this.#zoned, this.#zoneless]) this.#cap(shelf);
  }

  /**
   * Keeps at most the shelf's capacity: its oldest, a job past one let go before let go too; or its
   * oldest and its newest (`oldestKept`).
   */
  #cap(shelf: Shelf): void {
    const sorted = shelf.kept.sort(oldestFirst);
    const newestKept = shelf.capacity - shelf.oldestKept;
    if (newestKept > 0) {
      const over = sorted.length - shelf.capacity;
      if (over <= 0) return;
      const between = sorted.splice(shelf.oldestKept, over);
      for (const entry of between) this.#letGo(shelf, entry);
      shelf.kept = sorted;
      return;
    }
    const { cutFrom } = shelf;
    const within = cutFrom ? sorted.filter((entry) => oldestFirst(entry, cutFrom) < 0) : sorted;
    const kept = within.slice(0, shelf.capacity);
    if (kept.length === sorted.length) return;
    const keptIds = new Set(kept.map((entry) => entry.job.job_id));
    for (const entry of sorted) {
      if (keptIds.has(entry.job.job_id)) continue;
      this.#letGo(shelf, entry);
      if (!shelf.cutFrom || oldestFirst(entry, shelf.cutFrom) < 0) shelf.cutFrom = entry;
    }
    shelf.kept = kept;
  }

  /** A recent job let go for the cap: counted, and no longer held. */
  #letGo(shelf: Shelf, entry: Entry): void {
    this.#held.delete(entry.job.job_id);
    shelf.cut.add(entry.ms);
  }
}
