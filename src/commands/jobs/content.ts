import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { formatDuration, formatTimestamp } from '../../output/format.js';
import { startSpinner } from '../../output/spinner.js';
import { displayText } from '../../output/sanitize.js';
import { printJson, printTable } from '../../output/table.js';
import { requireUserJobId } from '../../api/identifiers.js';

export async function runJobsContent(ctx: Context, [given = '']: string[]): Promise<number> {
  const jobId = requireUserJobId(given);
  const client = await ctx.client();
  const spinner = await startSpinner(ctx.io, `Reading job ${displayText(jobId)}`);
  const items = await client.jobContent(jobId).finally(() => spinner.stop());
  if (ctx.settings.json) {
    printJson(ctx.io, items);
    return ExitCode.ok;
  }
  if (items.length === 0) ctx.log.info(`Job ${displayText(jobId)} has no files yet.`);
  await printTable(
    ctx.io,
    ['ID', 'FILE NAME', 'DURATION', 'CREATED'],
    items.map((item) =>
      [item.id, item.file_name, formatDuration(item.audio_duration), formatTimestamp(item.created_at)].map(
        displayText,
      ),
    ),
  );
  return ExitCode.ok;
}
