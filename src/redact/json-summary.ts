/**
 * The object a `--json` run of `redact` ends with, whatever ended it:
 * `{"summary":{…counts},"dryRun"?:true,"interrupted"?:true}`. A script reading the output gets it
 * on every run that gets as far as its options: an interrupted one says so (exit 130 too), where its
 * counts alone could read as a run with nothing to do.
 */
import { ExitCode } from '../errors.js';
import type { IOStreams } from '../output/iostreams.js';
import { printJsonLine } from '../output/table.js';
import type { Counts, DryRunCounts } from './outcome.js';

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
 * planned, the lock waited for, the journals read): no file has a line, and under --json the summary
 * says so. `undecided`: the inputs planned, once they are known.
 */
export function interruptedBeforeDeciding(
  io: Pick<IOStreams, 'stdout' | 'json'>,
  dryRun: boolean,
  undecided = 0,
): number {
  if (io.json) {
    const counts = { ...noCounts(dryRun), ...(undecided > 0 ? { undecided } : {}) };
    printJsonSummary(io, counts, { dryRun, interrupted: true });
  }
  return ExitCode.interrupted;
}
