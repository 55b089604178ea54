import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isTokenRefused } from '../../api/errors.js';
import type { Context } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import { writeFileAtomically } from '../../fs/atomic-write.js';
import { safeBaseName } from '../../fs/safe-name.js';
import { startSpinner } from '../../output/spinner.js';
import { printJson } from '../../output/table.js';

export interface DownloadOutcome {
  fileName: string;
  path: string | null;
  status: 'downloaded' | 'skipped' | 'failed';
  bytes?: number;
  reason?: string;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** Fetches a job's files through signed URLs into the output folder (default: the current one). */
export async function runDownload(
  ctx: Context,
  [jobId = '', ...requested]: string[],
  options: { outDir?: string; overwrite?: boolean },
): Promise<number> {
  if (!jobId) throw new UsageError('a job id is required');
  const client = await ctx.client();
  const outDir = resolve(ctx.cwd, options.outDir ?? '.');
  const names =
    requested.length > 0 ? requested : (await client.jobContent(jobId)).map((item) => item.file_name);
  if (names.length === 0) ctx.log.info(`Job ${jobId} has no files yet.`);

  const { default: pLimit } = await import('p-limit');
  const limit = pLimit(ctx.settings.concurrency);
  const claimed = new Map<string, string>();
  const spinner = await startSpinner(ctx.io, `Downloading ${names.length} file(s) of job ${jobId}`);
  const abort = new AbortController();

  const fetchOne = async (fileName: string): Promise<DownloadOutcome> => {
    const local = safeBaseName(fileName);
    if (!local)
      return { fileName, path: null, status: 'failed', reason: 'the file name has no usable base name' };
    const path = join(outDir, local);
    const other = claimed.get(local);
    if (other !== undefined) {
      return { fileName, path, status: 'failed', reason: `${other} is saved under the same name` };
    }
    claimed.set(local, fileName);
    if (!options.overwrite && (await exists(path))) {
      return { fileName, path, status: 'skipped', reason: 'already exists (use --overwrite to replace it)' };
    }
    try {
      const bytes = await client.downloadJobFile(
        jobId,
        fileName,
        ({ body }) => writeFileAtomically(path, body, abort.signal),
        abort.signal,
      );
      return { fileName, path, status: 'downloaded', bytes };
    } catch (error) {
      if (isTokenRefused(error)) {
        abort.abort();
        throw error;
      }
      return { fileName, path, status: 'failed', reason: (error as Error).message };
    }
  };

  const outcomes = await Promise.all(names.map((name) => limit(() => fetchOne(name)))).finally(() =>
    spinner.stop(),
  );
  for (const outcome of outcomes) {
    if (ctx.settings.json) continue;
    if (outcome.status === 'downloaded') ctx.streams.stdout.write(`${outcome.path}\n`);
    else if (outcome.status === 'skipped') ctx.log.info(`skipped ${outcome.fileName}: ${outcome.reason}`);
    else ctx.log.error(`${outcome.fileName}: ${outcome.reason}`);
  }
  if (ctx.settings.json) printJson(ctx.io, outcomes);
  const failed = outcomes.filter((o) => o.status === 'failed').length;
  if (!ctx.settings.json) {
    const done = outcomes.filter((o) => o.status === 'downloaded').length;
    ctx.log.info(`${done} downloaded, ${outcomes.length - done - failed} skipped, ${failed} failed`);
  }
  return failed > 0 ? ExitCode.partial : ExitCode.ok;
}
