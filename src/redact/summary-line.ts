/**
 * The counts line a run of `redact` ends with on stderr when no live line shows them (a pipe, cron,
 * `--quiet --stats`): `redacted 6, skipped 2 (already done), rejected 1, failed 0, pending 0`.
 */
import type { SummaryCounts } from './json-summary.js';

/** What left inputs undecided: an interrupt, or a batch stopped by a failure (a refused token…). */
export type UndecidedBy = 'interrupted' | 'the batch stopped';

/**
 * `interruptedBeforeDeciding`: the run was interrupted before it decided any input (json-summary.ts);
 * with no input planned yet, nothing else on the line would say it was interrupted.
 */
export function summaryLine(
  counts: SummaryCounts,
  dryRun: boolean,
  interruptedBeforeDeciding = false,
  undecidedBy: UndecidedBy = 'interrupted',
): string {
  const undecided = counts.undecided
    ? `, undecided ${counts.undecided} (${undecidedBy})`
    : interruptedBeforeDeciding
      ? ' (interrupted before any input was decided)'
      : '';
  const tooRecent = counts.tooRecent ?? 0;
  const why =
    tooRecent > 0
      ? `already done ${(counts.skipped ?? 0) - tooRecent}, too recent for --min-age ${tooRecent}`
      : 'already done';
  if (dryRun) {
    return `dry run: would send ${counts['would-send'] ?? 0}, would collect ${counts['would-collect'] ?? 0}, skipped ${counts.skipped ?? 0} (${why}), rejected ${counts.rejected ?? 0}${undecided}; nothing was sent`;
  }
  return `redacted ${counts.done ?? 0}, skipped ${counts.skipped ?? 0} (${why}), rejected ${counts.rejected ?? 0}, failed ${counts.failed ?? 0}, pending ${counts.pending ?? 0}${undecided}`;
}
