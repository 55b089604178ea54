import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { formatTimestamp } from '../../output/format.js';
import { startSpinner } from '../../output/spinner.js';
import { printJson, printTable } from '../../output/table.js';
import { maskToken } from '../../settings/mask.js';

export async function runJobsList(ctx: Context): Promise<number> {
  const client = await ctx.client();
  const spinner = await startSpinner(ctx.io, 'Listing jobs');
  const jobs = await client.listJobs().finally(() => spinner.stop());
  const newestFirst = jobs
    .map((job) => ({ ...job, token: maskToken(job.token) }))
    .sort((a, b) => (Date.parse(b.created_at) || 0) - (Date.parse(a.created_at) || 0));
  if (ctx.settings.json) {
    printJson(ctx.io, newestFirst);
    return ExitCode.ok;
  }
  if (newestFirst.length === 0) ctx.log.info('No jobs.');
  await printTable(
    ctx.io,
    ['JOB ID', 'CREATED', 'TOKEN'],
    newestFirst.map((job) => [job.job_id, formatTimestamp(job.created_at), job.token]),
  );
  return ExitCode.ok;
}
