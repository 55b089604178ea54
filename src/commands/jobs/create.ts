import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { displayText } from '../../output/sanitize.js';
import { printJson } from '../../output/table.js';

export async function runJobsCreate(ctx: Context): Promise<number> {
  const jobId = await (await ctx.client()).createJob();
  if (ctx.settings.json) printJson(ctx.io, { job_id: jobId });
  else ctx.streams.stdout.write(`${displayText(jobId)}\n`);
  return ExitCode.ok;
}
