import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { formatTimestamp } from '../../output/format.js';
import { startSpinner } from '../../output/spinner.js';
import { printJson, printTable } from '../../output/table.js';
import { displayText } from '../../output/sanitize.js';

export async function runJobsList(ctx: Context): Promise<number> {
  const client = await ctx.client();
  const spinner = await startSpinner(ctx, 'Listing jobs');
  const jobs = await client.listJobs().finally(() => spinner.stop());
  // The client gives each job's token masked; sorting needs every job, kept in memory (~100 MB for 200,000).
  const newestFirst = jobs.sort((a, b) => (Date.parse(b.created_at) || 0) - (Date.parse(a.created_at) || 0));
  if (ctx.settings.json) {
    printJson(ctx, newestFirst);
    return ExitCode.ok;
  }
  if (newestFirst.length === 0) ctx.log.info('No jobs.');
  await printTable(
    ctx,
    ['JOB ID', 'CREATED', 'TOKEN'],
    newestFirst.map((job) => [job.job_id, formatTimestamp(job.created_at), job.token].map(displayText)),
  );
  return ExitCode.ok;
}
