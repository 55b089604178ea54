/**
 * What the user sees. `--json`: one object per file outcome on stdout, then a summary object. Not a
 * terminal (cron, pipes): one tab-separated line per file on stdout and a summary line on stderr.
 * A terminal: a spinner with live counts on stderr and summary tables at the end on stdout.
 */
import type { Context } from '../context.js';
import { type Spinner, startSpinner } from '../output/spinner.js';
import { printJsonLine } from '../output/table.js';

export type Status = 'done' | 'skipped' | 'rejected' | 'failed' | 'pending';
/** The statuses of `--dry-run`: what a real run would do. */
export type DryRunStatus = 'would-send' | 'would-collect' | 'skipped' | 'rejected';

export interface Outcome {
  /** The input as shown to the user (relative to the working folder when inside it). */
  input: string;
  /** The output as shown to the user; empty when there is none (a missing input). */
  output: string;
  status: Status | DryRunStatus;
  reason?: string;
  jobId?: string;
}

export interface Progress {
  queued: number;
  inFlight: number;
  waiting: number;
  done: number;
  failed: number;
  rejected: number;
}

export type Counts = Record<Status, number>;
export type DryRunCounts = Record<DryRunStatus, number>;

/** Statuses that are not a success: their lines are printed even with --quiet. */
const PROBLEMS = new Set<string>(['rejected', 'failed', 'pending']);
/** At most this many problem rows in the terminal's table; the rest are counted. */
const MAX_TABLE_ROWS = 200;

function oneLine(text: string): string {
  return text.replace(/[\t\r\n]+/g, ' ');
}

function detailOf(outcome: Outcome): string {
  if (outcome.status === 'done' || outcome.status === 'would-send' || outcome.status === 'would-collect') {
    return outcome.output;
  }
  if (outcome.status === 'skipped') return outcome.output;
  return outcome.reason ?? '';
}

export class Reporter {
  readonly #ctx: Context;
  readonly #spinner: Spinner;
  readonly #problems: Outcome[] = [];
  readonly #mode: 'json' | 'lines' | 'table';

  private constructor(ctx: Context, spinner: Spinner) {
    this.#ctx = ctx;
    this.#spinner = spinner;
    this.#mode = ctx.settings.json ? 'json' : ctx.stdoutIsTTY ? 'table' : 'lines';
  }

  static async start(ctx: Context, text: string): Promise<Reporter> {
    return new Reporter(ctx, await startSpinner(ctx, text));
  }

  /** One file's final outcome. */
  outcome(outcome: Outcome): void {
    if (this.#mode === 'json') {
      const { input, output, status, reason, jobId } = outcome;
      printJsonLine(this.#ctx, {
        input,
        output: output || null,
        status,
        ...(reason ? { reason } : {}),
        ...(jobId ? { jobId } : {}),
      });
      return;
    }
    if (PROBLEMS.has(outcome.status)) this.#problems.push(outcome);
    if (this.#mode === 'lines' && (!this.#ctx.settings.quiet || PROBLEMS.has(outcome.status))) {
      const fields = [outcome.status, outcome.input, detailOf(outcome)];
      this.#ctx.streams.stdout.write(`${fields.map(oneLine).join('\t')}\n`);
    }
  }

  progress(progress: Progress): void {
    const parts = [`${progress.done} done`, `${progress.inFlight} in flight`, `${progress.queued} queued`];
    if (progress.waiting) parts.push(`${progress.waiting} waiting for the service`);
    parts.push(`${progress.failed} failed`);
    if (progress.rejected) parts.push(`${progress.rejected} rejected`);
    this.#spinner.update(`redacting: ${parts.join(', ')}`);
  }

  /** Stops the spinner and prints the summary (object, line or tables). */
  async finish(counts: Partial<Counts & DryRunCounts>, dryRun: boolean): Promise<void> {
    const line = summaryLine(counts, dryRun);
    const bad = (counts.rejected ?? 0) + (counts.failed ?? 0) + (counts.pending ?? 0) > 0;
    if (bad) this.#spinner.fail(line);
    else this.#spinner.succeed(line);
    if (this.#mode === 'json') {
      printJsonLine(this.#ctx, { summary: counts, ...(dryRun ? { dryRun: true } : {}) });
      return;
    }
    if (this.#mode === 'lines') {
      if (!this.#ctx.settings.quiet && !this.#ctx.stderrIsTTY) this.#ctx.streams.stderr.write(`${line}\n`);
      return;
    }
    await this.#tables(counts, dryRun);
  }

  async #tables(counts: Partial<Counts & DryRunCounts>, dryRun: boolean): Promise<void> {
    const { default: Table } = await import('cli-table3');
    const style = this.#ctx.settings.color ? {} : { head: [], border: [] };
    const out = this.#ctx.streams.stdout;
    if (this.#problems.length > 0) {
      const problems = new Table({ head: ['status', 'input', 'reason'], style, wordWrap: true });
      for (const problem of this.#problems.slice(0, MAX_TABLE_ROWS)) {
        problems.push([problem.status, problem.input, problem.reason ?? '']);
      }
      out.write(`${problems.toString()}\n`);
      if (this.#problems.length > MAX_TABLE_ROWS) {
        out.write(`… and ${this.#problems.length - MAX_TABLE_ROWS} more (run with --json for all of them)\n`);
      }
    }
    if (this.#ctx.settings.quiet) return;
    const rows: Array<[string, number]> = dryRun
      ? [
          ['would send', counts['would-send'] ?? 0],
          ['would collect (job pending)', counts['would-collect'] ?? 0],
          ['skipped (already done)', counts.skipped ?? 0],
          ['rejected', counts.rejected ?? 0],
        ]
      : [
          ['redacted', counts.done ?? 0],
          ['skipped (already done)', counts.skipped ?? 0],
          ['rejected', counts.rejected ?? 0],
          ['failed', counts.failed ?? 0],
          ['pending', counts.pending ?? 0],
        ];
    const summary = new Table({ head: [dryRun ? 'plan' : 'result', 'files'], style });
    for (const [name, count] of rows) summary.push([name, String(count)]);
    out.write(`${summary.toString()}\n`);
  }
}

export function summaryLine(counts: Partial<Counts & DryRunCounts>, dryRun: boolean): string {
  if (dryRun) {
    return `dry run: would send ${counts['would-send'] ?? 0}, would collect ${counts['would-collect'] ?? 0}, skipped ${counts.skipped ?? 0} (already done), rejected ${counts.rejected ?? 0}; nothing was sent`;
  }
  return `redacted ${counts.done ?? 0}, skipped ${counts.skipped ?? 0} (already done), rejected ${counts.rejected ?? 0}, failed ${counts.failed ?? 0}, pending ${counts.pending ?? 0}`;
}
