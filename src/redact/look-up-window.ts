/**
 * Which of the service's jobs may have been made since an upload began: the window of the look-up of
 * uploads whose answer never came (recent-jobs.ts, reconcile.ts).
 *
 * A time with a zone (an offset, `Z`, an epoch number) names an instant: a job made since the upload
 * began has one no earlier than its start, less RECONCILE_SKEW_MS for the two clocks.
 *
 * A date-time without a zone is the service's local time, at an offset nothing tells (UTC-12 to
 * UTC+14). Read as UTC, a service west of UTC made its jobs hours "before" the upload, and the upload
 * was sent again. Such times are compared only with each other and with spans of this machine's
 * clock: every job listed was made by the time it was received, so the highest of (zone-less time −
 * when its job was received) is at most the service's offset (and the offset is no lower than UTC-12's:
 * an idle account's newest job, days old, places nothing before that), and a job made since the upload began
 * reads at least its start plus that. Less the skew, and ZONE_SHIFT_MS for a clock put forward (daylight
 * saving time) between the upload and the listing. The window is then as wide as the run's own span,
 * not 26 hours: only jobs made during that span are read.
 */
import type { ListedTime } from '../api/timestamps.js';

/** Allowance for the difference between this machine's clock and the service's. */
export const RECONCILE_SKEW_MS = 5 * 60_000;

/** A zone's clock put forward between an upload and the listing: one hour, the most any zone does. */
export const ZONE_SHIFT_MS = 60 * 60_000;

/**
 * Past this ahead of this machine's clock, a zone-less time is no local time of a job made by now (the
 * easternmost zone is UTC+14): a wrong year or a hostile one, which must not shut the real job out.
 */
const EASTMOST_MS = 14 * 3_600_000 + RECONCILE_SKEW_MS;

/**
 * The lowest offset a service's clock can have (the westernmost zone is UTC-12): the listing's offset
 * is taken as no lower. Where the newest job listed was made days ago (an idle account, the upload
 * not taken), the window reached back to it, and the jobs of its last day of work were read, up to
 * the cap, under a warning that they were made since the upload began.
 */
const WESTMOST_MS = -12 * 3_600_000;

export class LookUpWindow {
  /**
   * The highest zone-less time listed less when its job was received, and no lower than WESTMOST_MS:
   * at most the service's offset.
   */
  #zonelessOffsetMs = Number.NEGATIVE_INFINITY;

  /** A listed job's time, received at `receivedMs` (this machine's clock). It only ever raises the offset. */
  see(time: ListedTime | undefined, receivedMs: number): void {
    if (!time?.zoneless) return;
    const offset = time.ms - receivedMs;
    if (offset <= EASTMOST_MS) this.#zonelessOffsetMs = Math.max(this.#zonelessOffsetMs, offset, WESTMOST_MS);
  }

  /**
   * The earliest reading of a time of its kind (`zoneless`) that a job made since `sinceMs` has; undefined
   * for a zone-less one while no zone-less time has been listed (it cannot be placed: read, as undated).
   */
  startMs(zoneless: boolean, sinceMs: number): number | undefined {
    if (!zoneless) return sinceMs - RECONCILE_SKEW_MS;
    const offset = this.#zonelessOffsetMs;
    return Number.isFinite(offset) ? sinceMs + offset - RECONCILE_SKEW_MS - ZONE_SHIFT_MS : undefined;
  }

  /**
   * How long after `sinceMs` a job of this time was made, as its time tells (a zone-less one as though
   * the newest job listed was made as it was received); undefined for a time that cannot be placed.
   * Comparable across the two kinds: the look-up reads the earliest first.
   */
  madeAfterMs(time: ListedTime | undefined, sinceMs: number): number | undefined {
    const made = this.madeMs(time);
    return made === undefined ? undefined : made - sinceMs;
  }

  /**
   * When a job of this time was made, as its time tells: a zone-less one as though the newest job
   * listed was made as it was received (never earlier than it was; `jobs list` sorts by it too).
   */
  madeMs(time: ListedTime | undefined): number | undefined {
    if (!time) return undefined;
    if (!time.zoneless) return time.ms;
    const offset = this.#zonelessOffsetMs;
    return Number.isFinite(offset) ? time.ms - offset : undefined;
  }

  /** Whether a job of this time may have been made since `sinceMs` (undated, or unplaced: it may). */
  maySince(time: ListedTime | undefined, sinceMs: number): boolean {
    const start = time && this.startMs(time.zoneless, sinceMs);
    return start === undefined || (time !== undefined && time.ms >= start);
  }
}
