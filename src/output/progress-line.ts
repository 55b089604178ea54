/**
 * The text of a progress line, shared by the live line on a terminal and `--stats` lines in a log:
 *
 *   redacting 120/480 · 2 failed · 8 in flight · 36.2 MB sent · 4.1 MB/s · 0:32 elapsed · ETA 1:34
 */
import prettyBytes from 'pretty-bytes';
import { fitParts } from './fit.js';
import { formatDuration } from './format.js';

export interface ProgressFigures {
  /** What the run is doing: `redacting`, `checking`. */
  verb: string;
  /** Files in the run; 0 when not known yet. */
  total: number;
  /** Files with a final outcome (done, skipped, rejected, failed, pending). */
  settled: number;
  /** Of those, the ones that needed the service (done, failed, pending): the pace of the run. */
  worked: number;
  failed: number;
  inFlight: number;
  waiting: number;
  /** Files begun (sent, or their job waited for) and not settled yet. */
  underWay: number;
  /** When the newest of those was begun (ms since the epoch). */
  newestBegunAt?: number | undefined;
  /** How long a file takes from its start to its outcome, on average so far (ms); unknown before one has. */
  typicalFileMs?: number | undefined;
  bytesSent: number;
  /** When the run started (ms since the epoch). */
  startedAt: number;
}

export const SEPARATOR = ' · ';

/** Shown for any work left, however little: `ETA 0:00` would read as done. */
const LEAST_ETA_SECONDS = 1;

/**
 * The remaining time, in seconds: the files still to settle at the pace of those the service has
 * settled so far, but never less than the last files need on their own. At the end of a run the
 * pace says a file per second when each takes 8 s with 8 at once; the newest file under way still
 * needs the typical time of a file less what it has taken, and a file not begun yet the whole of it.
 * Undefined when it cannot be told: before the service has settled a file, or when every file left
 * is under way and has taken longer than a file takes. Files still to be skipped count as work too,
 * so the estimate leans long rather than short.
 */
export function etaSeconds(figures: ProgressFigures, now: number): number | undefined {
  const remaining = Math.max(0, figures.total - figures.settled);
  if (remaining === 0) return 0;
  const elapsed = (now - figures.startedAt) / 1000;
  if (figures.worked === 0 || elapsed <= 0) return undefined;
  const atPace = (remaining * elapsed) / figures.worked;
  const last = lastFilesSeconds(figures, now, remaining);
  if (last === undefined) return undefined;
  return Math.max(LEAST_ETA_SECONDS, atPace, last);
}

/** What the files left need however many go at once; undefined when it cannot be told. */
function lastFilesSeconds(figures: ProgressFigures, now: number, remaining: number): number | undefined {
  const notBegun = remaining - figures.underWay;
  const typical = figures.typicalFileMs;
  if (typical === undefined) return notBegun > 0 ? 0 : undefined;
  const newestTaken = figures.newestBegunAt === undefined ? 0 : now - figures.newestBegunAt;
  const newestLeft = figures.underWay > 0 ? typical - newestTaken : 0;
  if (notBegun > 0) return Math.max(typical, newestLeft) / 1000;
  return newestLeft > 0 ? newestLeft / 1000 : undefined;
}

/**
 * One progress line; `byteRate` (bytes per second) is left out when unknown. With `columns`, the
 * line fits that width: the rate, the bytes and the elapsed time give way before the count and the ETA.
 */
export function progressLine(
  figures: ProgressFigures,
  now: number,
  byteRate?: number,
  columns?: number,
): string {
  const count = figures.total > 0 ? `${figures.settled}/${figures.total}` : `${figures.settled}`;
  const parts = [{ text: `${figures.verb} ${count}`, rank: 0 }];
  const add = (text: string, rank: number) => parts.push({ text, rank });
  // Ranks: the higher, the sooner a part gives way to a narrow terminal. Jobs waiting for the
  // service outrank uploads in flight: they are what explains a run that stalls for minutes.
  if (figures.failed > 0) add(`${figures.failed} failed`, 2);
  if (figures.inFlight > 0) add(`${figures.inFlight} in flight`, 4);
  if (figures.waiting > 0) add(`${figures.waiting} waiting for the service`, 3);
  if (figures.bytesSent > 0) add(`${prettyBytes(figures.bytesSent)} sent`, 6);
  if (byteRate !== undefined && byteRate > 0) add(`${prettyBytes(byteRate)}/s`, 7);
  add(`${formatDuration(Math.max(0, now - figures.startedAt) / 1000)} elapsed`, 5);
  const eta = etaSeconds(figures, now);
  if (figures.total > 0) add(`ETA ${eta === undefined ? '-:--' : formatDuration(eta)}`, 1);
  if (columns === undefined) return parts.map((part) => part.text).join(SEPARATOR);
  return fitParts(parts, SEPARATOR, columns);
}

/** Window of the byte rate: what the network does now, not on average since the start. */
const RATE_WINDOW_MS = 10_000;
/** One sample kept per this much time, so the window holds a bounded number of them. */
const SAMPLE_EVERY_MS = 250;

/** A rate over a sliding window of samples of a growing counter (bytes sent). */
export class RateMeter {
  readonly #samples: Array<{ at: number; value: number }> = [];

  sample(at: number, value: number): void {
    const last = this.#samples.at(-1);
    if (last && at - last.at < SAMPLE_EVERY_MS) return;
    this.#samples.push({ at, value });
    while (this.#samples.length > 2 && (this.#samples[0]?.at ?? at) < at - RATE_WINDOW_MS)
      this.#samples.shift();
  }

  /** Units per second over the window; undefined with less than a second of samples. */
  rate(): number | undefined {
    const first = this.#samples[0];
    const last = this.#samples.at(-1);
    if (!first || !last || last.at - first.at < 1000) return undefined;
    return ((last.value - first.value) * 1000) / (last.at - first.at);
  }
}
