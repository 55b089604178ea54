/**
 * A download's progress line, for the live line on a terminal and `--stats` lines in a log, in
 * `redact`'s words: `downloading 12/40 · 1 failed · 4 in flight · 0:32 elapsed · ETA 1:34`. While
 * the job's listing is read the total is not known: `downloading 12 · 4 in flight · 0:32 elapsed`.
 */
import { progressLine } from '../output/progress-line.js';

export interface DownloadCounts {
  downloaded: number;
  skipped: number;
  failed: number;
}

export interface DownloadProgress {
  counts: DownloadCounts;
  /** Files named on the command line; 0 when they come from the job's listing. */
  total: number;
  /** Downloads whose request is under way. */
  inFlight: number;
  /** When the run started (ms since the epoch). */
  startedAt: number;
}

/** The line as of `now`, fitted to `columns` when given (the live line) or whole (`--stats`). */
export function downloadProgressLine(progress: DownloadProgress, now: number, columns?: number): string {
  const { downloaded, skipped, failed } = progress.counts;
  const figures = {
    verb: 'downloading',
    total: progress.total,
    settled: downloaded + skipped + failed,
    worked: downloaded + failed,
    failed,
    inFlight: progress.inFlight,
    waiting: 0,
    underWay: progress.inFlight,
    bytesSent: 0,
    startedAt: progress.startedAt,
  };
  return progressLine(figures, now, undefined, columns);
}
