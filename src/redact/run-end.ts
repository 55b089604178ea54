/**
 * The end of a redact run: the tally of its outcomes, its exit code, the summary's last word and,
 * for a batch that stopped, why.
 */
import type { Context } from '../context.js';
import { ExitCode } from '../errors.js';
import { escapeControls } from '../output/sanitize.js';
import type { Halt } from './halt.js';
import type { Counts, Outcome } from './outcome.js';
import type { Reporter } from './report.js';
import { stopHint } from './wrong-service.js';

/** The outcomes counted by status, and how many pending ones a `--no-wait` run means to leave. */
export class RunTally {
  readonly counts: Counts = { done: 0, skipped: 0, rejected: 0, failed: 0, pending: 0 };
  #expectedPending = 0;

  constructor(private readonly wait: boolean) {}

  /** Counts an outcome; true when it is pending as `--no-wait` means it to be (its job submitted). */
  count(outcome: Outcome): boolean {
    this.counts[outcome.status as keyof Counts]++;
    const submitted = outcome.jobId !== undefined || outcome.submitted === true;
    const expected = outcome.status === 'pending' && !this.wait && submitted;
    if (expected) this.#expectedPending++;
    return expected;
  }

  /** Files the run leaves wrong or undone, beyond the jobs a `--no-wait` run submitted. */
  get problems(): number {
    const { rejected, failed, pending } = this.counts;
    return rejected + failed + (pending - this.#expectedPending);
  }
}

/** A run's exit code, the first that applies: stopped by a failure, interrupted, token refused, files left. */
export function runExitCode(run: {
  halted: boolean;
  interrupted: boolean;
  refused: boolean;
  problems: number;
}): number {
  if (run.halted) return ExitCode.partial;
  if (run.interrupted) return ExitCode.interrupted;
  if (run.refused) return ExitCode.auth;
  return run.problems > 0 ? ExitCode.partial : ExitCode.ok;
}

export interface RunEnding {
  halt: Halt;
  /** The service's refusal of the token, if it refused it. */
  refusal: { message?: string; hint?: string } | undefined;
  /** The first interrupt (stop) and the second (abort). */
  stop: AbortSignal;
  abort: AbortSignal;
}

/** Finishes the summary, says why a stopped batch stopped, and returns the run's exit code. */
export function endOfRun(ctx: Context, live: Reporter, tally: RunTally, end: RunEnding): number {
  const { halt, refusal } = end;
  const code = runExitCode({
    halted: Boolean(halt.reason),
    interrupted: end.stop.aborted || end.abort.aborted,
    refused: Boolean(refusal),
    problems: tally.problems,
  });
  // The summary's tick or cross says what the exit code says: the jobs a --no-wait run submitted
  // are pending, and that is its success.
  // A stop ends the deciding as an interrupt does (stages.ts): the inputs left are counted undecided.
  live.finish(
    tally.counts,
    false,
    code === ExitCode.ok,
    end.stop.aborted,
    Boolean(halt.reason) || Boolean(refusal),
  );
  if (halt.reason) {
    const failure = halt.reason as { message?: string };
    const hint = stopHint(halt.reason, ctx.settings.sources['base-url']);
    ctx.log.error(`the batch stopped: ${failure.message ?? String(halt.reason)}`);
    // A hint may name a folder, and a folder's name may hold an escape sequence.
    if (hint) ctx.streams.stderr.write(`hint: ${escapeControls(hint)}\n`);
  } else if (code === ExitCode.auth && refusal) {
    ctx.log.error(refusal.message ?? 'the service refused the token');
    if (refusal.hint) ctx.streams.stderr.write(`hint: ${escapeControls(refusal.hint)}\n`);
  }
  return code;
}
