import type { Job } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { timestampMs } from '../../api/timestamps.js';
import { formatTimestamp } from '../../output/format.js';
import { displayText } from '../../output/sanitize.js';
import { startSpinner } from '../../output/spinner.js';
import { escapeJsonControls, printTable } from '../../output/table.js';
import { alignedLines, writeLines } from './write-lines.js';

/** Beyond this many rows a terminal gets aligned columns rather than a drawn table. */
const MAX_DRAWN_ROWS = 2000;

function* jsonArrayLines(jobs: readonly Job[]): Iterable<string> {
  // The same text as JSON.stringify(jobs, null, 2), one element at a time.
  yield '[\n';
  for (let i = 0; i < jobs.length; i++) {
    const item = JSON.stringify(jobs[i], null, 2).replace(/\n/g, '\n  ');
    yield `  ${escapeJsonControls(item)}${i < jobs.length - 1 ? ',' : ''}\n`;
  }
  yield ']\n';
}

function row(job: Job): string[] {
  return [job.job_id, formatTimestamp(job.created_at), job.token].map(displayText);
}

function* tsvLines(jobs: readonly Job[]): Iterable<string> {
  for (const job of jobs) yield `${row(job).join('\t')}\n`;
}

/**
 * Every job of the token, newest first. Sorting needs them all, so they are kept (about 1 KB each
 * at most in memory); the output is written in batches, never built whole.
 */
export async function runJobsList(ctx: Context): Promise<number> {
  const client = await ctx.client();
  const spinner = await startSpinner(ctx.io, 'Listing jobs');
  const jobs = await client.listJobs().finally(() => spinner.stop());
  // The client gives each job's token masked.
  // A job whose time cannot be read goes last.
  jobs.sort((a, b) => (timestampMs(b.created_at) ?? 0) - (timestampMs(a.created_at) ?? 0));
  if (ctx.settings.json) {
    await writeLines(ctx.streams.stdout, jsonArrayLines(jobs));
    return ExitCode.ok;
  }
  if (jobs.length === 0) ctx.log.info('No jobs.');
  if (!ctx.io.stdoutIsTTY) {
    await writeLines(ctx.streams.stdout, tsvLines(jobs));
    return ExitCode.ok;
  }
  const head = ['JOB ID', 'CREATED', 'TOKEN'];
  if (jobs.length > MAX_DRAWN_ROWS) await writeLines(ctx.streams.stdout, alignedLines(head, jobs.map(row)));
  else await printTable(ctx.io, head, jobs.map(row));
  return ExitCode.ok;
}
