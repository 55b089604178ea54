/**
 * What the user sees of a run.
 * - `--json`: one object per file outcome on stdout, then a summary object.
 * - stdout not a terminal (cron, pipes): one tab-separated line per file on stdout, a summary line
 *   on stderr.
 * - stdout a terminal: at the end, one line of counts, then the problem files with their reasons,
 *   each cut to the width.
 * And on stderr, whatever the mode: a live line when IOStreams says so, and `--stats` lines.
 * Text from the service or from file names is escaped before it is shown (JSON escapes by its rules).
 */
import { fitParts, fitWidth } from '../output/fit.js';
import { formatDuration } from '../output/format.js';
import type { IOStreams } from '../output/iostreams.js';
import { type ProgressFigures, progressLine, RateMeter, SEPARATOR } from '../output/progress-line.js';
import { fitProblemLine } from '../output/problem-line.js';
import { displayText } from '../output/sanitize.js';
import { countsLineWanted, type StatusLine, startStatusLine } from '../output/status-line.js';
import { printJsonLine } from '../output/table.js';
import type { Counts, DryRunCounts, Outcome, Progress } from './outcome.js';
import { printJsonSummary, type SummaryCounts } from './json-summary.js';
import { ProblemList } from './problem-list.js';
import { summaryLine, type UndecidedBy } from './summary-line.js';

export type { Counts, DryRunCounts, DryRunStatus, Outcome, Progress, Status } from './outcome.js';

export type { SummaryCounts } from './json-summary.js';
export { summaryLine } from './summary-line.js';

/** Statuses that are not a success: their lines are printed even with --quiet. */
const PROBLEMS = new Set<string>(['rejected', 'failed', 'pending']);
/** Width of the status column of the problem list. */
const STATUS_COLUMN = 'rejected'.length;

export interface ReporterOptions {
  /** The live line's verb: `redacting`, `checking`. */
  verb: string;
  /** Clock of elapsed time and ETA. */
  now?: () => number;
  /** Files in the run, when known before the engine's first snapshot (a dry run has none). */
  total?: number;
}

/**
 * A line's third field: a problem's reason, a file left by --min-age's (when it is due), a hard link's
 * (which link was sent), else the output.
 */
function detailOf(outcome: Outcome): string {
  if (PROBLEMS.has(outcome.status) || outcome.tooRecent || outcome.sameAs !== undefined)
    return outcome.reason ?? '';
  return outcome.output;
}

export class Reporter {
  readonly #io: IOStreams;
  readonly #mode: 'json' | 'lines' | 'terminal';
  readonly #options: ReporterOptions;
  readonly #now: () => number;
  readonly #startedAt: number;
  /** The problem files listed at the end on a terminal (a bounded number: memory stays flat). */
  readonly #problems = new ProblemList();
  /** Outcomes seen, for the progress line when the engine sends no snapshots (a dry run). */
  readonly #seen: Record<string, number> = {};
  #latest: Progress | undefined;
  /** Skipped files that --min-age left for a later run. */
  #tooRecent = 0;
  readonly #rate = new RateMeter();
  #status: StatusLine | undefined;

  private constructor(io: IOStreams, options: ReporterOptions) {
    this.#io = io;
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#startedAt = this.#now();
    // The problem list at the end stands for the per-file lines only where stderr shows the run's
    // progress meanwhile: with stderr sent to a log (`2>run.log`), a terminal on stdout would
    // otherwise show nothing for the whole run.
    this.#mode = io.json ? 'json' : io.stdoutIsTTY && io.stderrIsTTY ? 'terminal' : 'lines';
  }

  static async start(io: IOStreams, options: ReporterOptions): Promise<Reporter> {
    const reporter = new Reporter(io, options);
    reporter.#status = await startStatusLine(io, (columns) => reporter.line(columns));
    return reporter;
  }

  /**
   * One file's final outcome. `expected`: a pending outcome that is the run's success (a job a
   * `--no-wait` run submitted), which --quiet leaves out as it does a done file.
   */
  outcome(outcome: Outcome, expected = false): void {
    this.#seen[outcome.status] = (this.#seen[outcome.status] ?? 0) + 1;
    if (outcome.tooRecent) this.#tooRecent++;
    if (this.#mode === 'json') {
      const { input, output, status, reason, jobId, tooRecent, sameAs } = outcome;
      printJsonLine(this.#io, {
        input,
        output: output || null,
        status,
        ...(reason ? { reason } : {}),
        ...(jobId ? { jobId } : {}),
        // The summary's `tooRecent` per file: a script tells a file left for a later run from one
        // already done without parsing the reason's words.
        ...(tooRecent ? { tooRecent: true } : {}),
        // A hard link skipped as sent under another path: which one, for a script to follow to its
        // output (this line's `output`, the sent link's) without parsing the reason.
        ...(sameAs !== undefined ? { sameAs } : {}),
      });
      return;
    }
    const problem = PROBLEMS.has(outcome.status);
    if (this.#mode === 'terminal' && problem) this.#problems.add(outcome);
    // A --no-wait night's submitted jobs are no problem: one quiet line each drowned a cron log.
    if (this.#mode === 'lines' && (!this.#io.quiet || (problem && !expected))) {
      const fields = [outcome.status, outcome.input, detailOf(outcome)];
      this.#io.stdout.write(`${fields.map(displayText).join('\t')}\n`);
    }
  }

  /** A snapshot of the run from the engine; drawn at the live line's pace, not at each call. */
  progress(progress: Progress): void {
    this.#latest = progress;
  }

  /** The progress line as of now (the live line and `--stats` call it), fitted to `columns` if given. */
  line(columns?: number): string {
    const now = this.#now();
    const figures = this.#figures();
    this.#rate.sample(now, figures.bytesSent);
    return progressLine(figures, now, this.#rate.rate(), columns);
  }

  #figures(): ProgressFigures {
    const p = this.#latest;
    const verb = this.#options.verb;
    if (p) {
      const worked = p.done + p.failed + p.pending;
      return {
        verb,
        total: p.total,
        settled: worked + p.skipped + p.rejected,
        worked,
        failed: p.failed,
        inFlight: p.inFlight,
        waiting: p.waiting,
        underWay: p.underWay,
        newestBegunAt: p.newestBegunAt,
        typicalFileMs: p.typicalFileMs,
        bytesSent: p.bytesSent,
        startedAt: p.startedAt,
      };
    }
    const seen = (status: string) => this.#seen[status] ?? 0;
    const settled = Object.values(this.#seen).reduce((sum, n) => sum + n, 0);
    return {
      verb,
      total: this.#options.total ?? 0,
      settled,
      worked: settled - seen('skipped') - seen('rejected'),
      failed: seen('failed'),
      inFlight: 0,
      waiting: 0,
      underWay: 0,
      bytesSent: 0,
      startedAt: this.#startedAt,
    };
  }

  /**
   * Stops the progress and prints the summary (an object, a line, or a line and the problems). `ok`
   * (a tick, not a cross, before the live line's summary) is the caller's, who knows the exit code;
   * without it, any file rejected, failed or pending is a cross. `interrupted`: the inputs left without
   * an outcome (a first interrupt ends the deciding, see deciding-order.ts) are counted as undecided,
   * and the JSON summary says the run was interrupted. `stopped`: the batch stopped on a failure (a
   * refused token, a full disk…), which ends the deciding too: the inputs left are counted so.
   */
  finish(
    counts: Partial<Counts & DryRunCounts>,
    dryRun: boolean,
    ok?: boolean,
    interrupted = false,
    stopped = false,
  ): void {
    const undecided = interrupted || stopped ? this.#undecided() : 0;
    const undecidedBy: UndecidedBy = stopped ? 'the batch stopped' : 'interrupted';
    const shown: SummaryCounts = {
      ...counts,
      ...(this.#tooRecent > 0 ? { tooRecent: this.#tooRecent } : {}),
      ...(undecided > 0 ? { undecided } : {}),
    };
    const good = ok ?? (counts.rejected ?? 0) + (counts.failed ?? 0) + (counts.pending ?? 0) === 0;
    const status = this.#status;
    if (status?.live) {
      const elapsedMs = this.#now() - (this.#latest?.startedAt ?? this.#startedAt);
      status.finish(good, compactSummary(shown, dryRun, elapsedMs, status.columns));
    } else {
      status?.stop();
      // (--json has its summary object on stdout.)
      if (countsLineWanted(this.#io))
        this.#io.stderr.write(`${summaryLine(shown, dryRun, false, undecidedBy)}\n`);
    }
    if (this.#mode === 'json') {
      printJsonSummary(this.#io, shown, { dryRun, interrupted });
      return;
    }
    if (this.#mode === 'terminal') this.#printProblems();
  }

  /** The inputs of the run that have no outcome (known only when the run was given its total). */
  #undecided(): number {
    const settled = Object.values(this.#seen).reduce((sum, n) => sum + n, 0);
    return Math.max(0, (this.#options.total ?? 0) - settled);
  }

  /** Stops the progress without a summary (the run failed before it could finish). Idempotent. */
  close(): void {
    this.#status?.stop();
  }

  #printProblems(): void {
    const width = this.#io.width('stdout');
    const { shown, unlisted } = this.#problems.listed();
    for (const problem of shown) {
      const lead = `${problem.status.padEnd(STATUS_COLUMN)}  `;
      const line = fitProblemLine(lead, displayText(problem.input), displayText(problem.reason ?? ''), width);
      this.#io.stdout.write(`${line}\n`);
    }
    if (unlisted > 0) {
      const more = `… and ${unlisted} more (run with --json, or read the journal, for all of them)`;
      this.#io.stdout.write(`${fitWidth(more, width)}\n`);
    }
  }
}

/**
 * The counts for a terminal, in `columns`: `redacted 6 · skipped 0 · rejected 1 · failed 0 ·
 * pending 0 · 0:03`; when too wide, the zero counts go first, then the time; a count that is not
 * zero never goes (the line is cut after it instead).
 */
export function compactSummary(
  counts: SummaryCounts,
  dryRun: boolean,
  elapsedMs: number,
  columns: number,
): string {
  const entries: Array<[string, number]> = dryRun
    ? [
        ['would send', counts['would-send'] ?? 0],
        ['would collect', counts['would-collect'] ?? 0],
        ['skipped', counts.skipped ?? 0],
        ['rejected', counts.rejected ?? 0],
      ]
    : [
        ['redacted', counts.done ?? 0],
        ['skipped', counts.skipped ?? 0],
        ['rejected', counts.rejected ?? 0],
        ['failed', counts.failed ?? 0],
        ['pending', counts.pending ?? 0],
      ];
  if (counts.undecided) entries.push(['undecided', counts.undecided]);
  const parts = entries.map(([name, n]) => ({ text: `${name} ${n}`, rank: n === 0 ? 2 : 0 }));
  // Among the skipped, not beside them: the files --min-age left (`skipped 5 (2 too recent)`).
  const skipped = entries.findIndex(([name]) => name === 'skipped');
  if (counts.tooRecent && parts[skipped]) parts[skipped].text += ` (${counts.tooRecent} too recent)`;
  parts.push({ text: dryRun ? 'nothing sent' : formatDuration(Math.max(0, elapsedMs) / 1000), rank: 1 });
  return fitParts(parts, SEPARATOR, columns);
}
