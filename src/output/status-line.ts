/**
 * A run's progress on stderr: a live line redrawn on a terminal (at most every FRAME_MS), and with
 * `--stats <interval>` a plain line every interval, for logs. The text comes from the caller at
 * each tick, so elapsed time and ETA move even while nothing finishes.
 */
import { fitWidth } from './fit.js';
import type { IOStreams } from './iostreams.js';
import { liveTextColumns, startSpinner } from './spinner.js';

/** The live line is recomputed this often (ora redraws at the same pace). */
const FRAME_MS = 100;
/**
 * The longest delay Node.js's timers take (about 24.8 days). A longer one (`--stats 30d`) fires every
 * millisecond instead, with a warning: a log flooded with lines.
 */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * Whether a run ends with its counts line on stderr: always but under --quiet, and under --quiet too
 * when `--stats` lines are printed (as rclone prints its final stats): a cron log of `--quiet --stats
 * 10m` otherwise ended on a progress line up to an interval old, and never said how the run ended.
 * (Under --json the counts are on stdout.)
 */
export function countsLineWanted(io: Pick<IOStreams, 'quiet' | 'json' | 'statsIntervalMs'>): boolean {
  return !io.json && (!io.quiet || io.statsIntervalMs !== undefined);
}

export interface StatusLine {
  /** Whether a live line is on screen (then `finish` leaves the final line in its place). */
  readonly live: boolean;
  /** Columns the live line's text may take (the terminal's, less the spinner's frame and the echo's room). */
  readonly columns: number;
  /** Stops both; on a live line, leaves `text` with a tick or a cross, cut to the width. */
  finish(ok: boolean, text: string): void;
  /** Stops both and leaves nothing. Safe to call more than once. */
  stop(): void;
}

export async function startStatusLine(
  io: Pick<IOStreams, 'progress' | 'stderr' | 'color' | 'statsIntervalMs'> &
    Partial<Pick<IOStreams, 'rewraps'>>,
  /** The line as of now, fitted to `columns` when given (the live line) or whole (`--stats`). */
  text: (columns?: number) => string,
): Promise<StatusLine> {
  const width = () => liveTextColumns(io.stderr);
  const spinner = await startSpinner(io, io.progress ? text(width()) : '', () => text(width()));
  const timers: NodeJS.Timeout[] = [];
  if (io.progress) timers.push(setInterval(() => spinner.update(text(width())), FRAME_MS));
  if (io.statsIntervalMs !== undefined) {
    const every = Math.min(io.statsIntervalMs, LONGEST_TIMER_MS);
    timers.push(setInterval(() => io.stderr.write(`${text()}\n`), every));
  }
  // These never keep the process alive on their own (ora's timer is stopped by finish or stop).
  for (const timer of timers) timer.unref();
  let stopped = false;
  const stop = () => {
    if (stopped) return false;
    stopped = true;
    for (const timer of timers) clearInterval(timer);
    return true;
  };
  return {
    live: io.progress,
    get columns() {
      return width();
    },
    finish(ok, final) {
      if (!stop()) return;
      const line = fitWidth(final, width());
      if (ok) spinner.succeed(line);
      else spinner.fail(line);
    },
    stop() {
      if (stop()) spinner.stop();
    },
  };
}
