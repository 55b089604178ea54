import { givenOrNull, type Job } from '../../api/schemas.js';
import { MAX_LIST_ITEMS } from '../../api/json-reader.js';
import type { Context } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import { formatTimestamp } from '../../output/format.js';
import { displayText } from '../../output/sanitize.js';
import type { Narrowable } from '../../output/table-layout.js';
import { startSpinner } from '../../output/spinner.js';
import { parseInteger } from '../../settings/numbers.js';
import { NewestJobs } from './newest-jobs.js';
import { jsonArrayLines, printRows, writeLines } from './write-lines.js';

/** Jobs shown when neither --limit nor --all is given: the recent ones, as gh lists runs and issues. */
export const DEFAULT_JOBS_LIMIT = 30;

/**
 * What gives way on a narrow terminal: the time, its date above its time and its `UTC` (a
 * 36-character job id leaves a 60-column terminal too little for them on one line), then the masked
 * token. The job id, which a user copies, never.
 */
const NARROWABLE: readonly Narrowable[] = [
  { column: 1, min: 10, words: true },
  { column: 2, min: 5 },
];

/** `forTable`: for a person's table, its time marked UTC; a pipe's line keeps it unmarked. */
function row(job: Job, forTable: boolean): string[] {
  return [job.job_id, formatTimestamp(job.created_at, forTable), job.token].map(displayText);
}

/** The job as machine output gives it: a token or a time the service did not give is null (givenOrNull). */
function machineJob(job: Job) {
  return { ...job, token: givenOrNull(job.token), created_at: givenOrNull(job.created_at) };
}

function* tsvLines(jobs: readonly Job[]): Iterable<string> {
  for (const job of jobs) yield `${row(job, false).join('\t')}\n`;
}

/**
 * How many of the newest jobs to keep: `--limit`, every one with `--all`. A person reads the newest
 * (the table and its plain lines); `--json` is the whole listing, as scripts were promised it.
 */
function jobsLimit(flags: { limit?: unknown; all?: unknown }, json: boolean): number {
  if (flags.all === true) {
    if (flags.limit !== undefined)
      throw new UsageError(
        '--all and --limit cannot be used together',
        'give one: --limit <n> for the newest n jobs, or --all for every job',
      );
    return Number.POSITIVE_INFINITY;
  }
  if (flags.limit === undefined) return json ? Number.POSITIVE_INFINITY : DEFAULT_JOBS_LIMIT;
  return parseInteger(String(flags.limit), '--limit', 1, MAX_LIST_ITEMS);
}

/**
 * The newest jobs of the token, newest first. Only the jobs shown are kept while the listing is read
 * (all of them with --all, to be sorted); the output is written in batches, never built whole.
 */
export async function runJobsList(
  ctx: Context,
  _args: string[],
  flags: Record<string, unknown>,
): Promise<number> {
  const limit = jobsLimit(flags, ctx.settings.json);
  const client = await ctx.client();
  const spinner = await startSpinner(ctx.io, 'Listing jobs');
  const newest = await client.eachJob(() => new NewestJobs(limit)).finally(() => spinner.stop());
  // The client gives each job's token masked.
  const jobs = newest.jobs();
  if (newest.seen > jobs.length) {
    const seen = newest.seen.toLocaleString('en-US');
    ctx.log.info(`showing the newest ${jobs.length} of ${seen} jobs; --limit <n> or --all for more`);
  }
  if (ctx.settings.json) {
    await writeLines(ctx.streams.stdout, jsonArrayLines(jobs, machineJob));
    return ExitCode.ok;
  }
  if (jobs.length === 0) ctx.log.info('No jobs.');
  if (!ctx.io.stdoutIsTTY) {
    await writeLines(ctx.streams.stdout, tsvLines(jobs));
    return ExitCode.ok;
  }
  await printRows(
    ctx.io,
    ['JOB ID', 'CREATED', 'TOKEN'],
    jobs.map((job) => row(job, true)),
    NARROWABLE,
  );
  return ExitCode.ok;
}
