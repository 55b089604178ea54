/**
 * The object a `--json` run of `redact` ends with, whatever ended it:
 * `{"summary":{…counts},"dryRun"?:true,"interrupted"?:true}`. A script reading the output gets it
 * on every run that gets as far as its options: an interrupted one says so (exit 130 too), where its
 * counts alone could read as a run with nothing to do.
 */
import { ExitCode } from '../errors.js';
import type { IOStreams } from '../output/iostreams.js';
import { countsLineWanted } from '../output/status-line.js';
import { printJsonLine } from '../output/table.js';
import type { Counts, DryRunCounts } from './outcome.js';
import { summaryLine } from './summary-line.js';

/**
 * The counts a summary shows; `undecided`, only after a first interrupt that ended the deciding: the
 * inputs given no outcome; `tooRecent`, only when there are some: those of the skipped that
 * `--min-age` left for a later run (not done).
 */
export type SummaryCounts = Partial<Counts & DryRunCounts> & { undecided?: number; tooRecent?: number };

/** The counts of a run that decided no input. */
export function noCounts(dryRun: boolean): SummaryCounts {
  return dryRun
    ? { 'would-send': 0, 'would-collect': 0, skipped: 0, rejected: 0 }
    : { done: 0, skipped: 0, rejected: 0, failed: 0, pending: 0 };
}

export function printJsonSummary(
  io: Pick<IOStreams, 'stdout'>,
  counts: SummaryCounts,
  run: { dryRun: boolean; interrupted: boolean },
): void {
  printJsonLine(io, {
    summary: counts,
    ...(run.dryRun ? { dryRun: true } : {}),
    ...(run.interrupted ? { interrupted: true } : {}),
  });
}

/**
 * A run interrupted before it decided any input (while its list was read, the inputs listed or
 * planned, the lock waited for, the journals read): no file has a line, and the run still ends with
 * its counts, as one interrupted later does: under --json the summary object, else the counts line on
 * stderr (countsLineWanted), which a cron log of `--quiet --stats` reads how the run ended by.
 * `undecided`: the inputs planned, once they are known.
 */
export function interruptedBeforeDeciding(
  io: Pick<IOStreams, 'stdout' | 'stderr' | 'json' | 'quiet' | 'statsIntervalMs'>,
  dryRun: boolean,
  undecided = 0,
): number {
  const counts = { ...noCounts(dryRun), ...(undecided > 0 ? { undecided } : {}) };
  if (io.json) printJsonSummary(io, counts, { dryRun, interrupted: true });
  else if (countsLineWanted(io)) io.stderr.write(`${summaryLine(counts, dryRun, true)}\n`);
  return ExitCode.interrupted;
}
