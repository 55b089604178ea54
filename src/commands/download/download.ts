import { resolve } from 'node:path';
import { requireUserFileName, requireUserJobId } from '../../api/identifiers.js';
import type { Context } from '../../context.js';
import { downloadFiles, type DownloadOutcome, NOT_STARTED_REASON } from '../../download/download-files.js';
import { ExitCode, UsageError } from '../../errors.js';
import { caseIgnored } from '../../fs/letter-case.js';
import { checkOutputFolderWritable } from '../../fs/writable.js';
import { sweepPartials } from '../../redact/sweep.js';
import { displayText } from '../../output/sanitize.js';
import { startSpinner } from '../../output/spinner.js';
import { printJson } from '../../output/table.js';
import { abortOnInterrupt } from './signals.js';

export type { DownloadOutcome };

/** Fetches a job's files through signed URLs into the output folder (default: the current one). */
export async function runDownload(
  ctx: Context,
  [jobId = '', ...requested]: string[],
  options: { outDir?: string; overwrite?: boolean },
): Promise<number> {
  if (!jobId) throw new UsageError('a job id is required');
  requireUserJobId(jobId);
  for (const name of requested) requireUserFileName(name);
  const outDir = resolve(ctx.cwd, options.outDir ?? '.');
  const client = await ctx.client(); // checks the settings; sends nothing yet
  // Taken over before the first file is written (the probe below), so Ctrl-C at any point after
  // this ends cleanly: exit 130, nothing left behind.
  const interrupt = abortOnInterrupt(ctx.log);
  try {
    // Before any request: a folder that cannot take the files is a usage error (exit 2), nothing sent.
    // The check's own file tells whether the folder ignores letter case, in a fresh, empty one too.
    const { ignoresCase } = await checkOutputFolderWritable(outDir);
    const swept = await sweepPartials([outDir], outDir);
    if (swept > 0) ctx.log.info(`removed ${swept} partial file(s) left by an earlier run`);
    interrupt.signal.throwIfAborted();
    // The listing's durations bound each file's size; named files, not listed, get the service's limit.
    const listed = requested.length > 0 ? [] : await client.jobContent(jobId, interrupt.signal);
    const durations = new Map<string, number | null>();
    // A name listed twice is fetched once: its first listing gives the duration.
    for (const item of listed)
      if (!durations.has(item.file_name)) durations.set(item.file_name, item.audio_duration);
    const names = requested.length > 0 ? requested : listed.map((item) => item.file_name);
    if (names.length === 0) ctx.log.info(`Job ${displayText(jobId)} has no files yet.`);

    const spinner = await startSpinner(
      ctx.io,
      `Downloading ${names.length} file(s) of job ${displayText(jobId)}`,
    );
    let notStarted = 0;
    const show = (outcome: DownloadOutcome) => {
      if (outcome.reason === NOT_STARTED_REASON) notStarted++;
      if (ctx.settings.json || outcome.reason === NOT_STARTED_REASON) return;
      const name = displayText(outcome.fileName);
      if (outcome.status === 'downloaded') ctx.streams.stdout.write(`${displayText(outcome.path ?? '')}\n`);
      else if (outcome.status === 'skipped') ctx.log.info(`skipped ${name}: ${outcome.reason}`);
      else ctx.log.error(`${name}: ${displayText(outcome.reason ?? 'failed')}`);
    };
    const result = await downloadFiles(
      { client, concurrency: ctx.settings.concurrency, signal: interrupt.signal, onOutcome: show },
      {
        jobId,
        fileNames: names,
        outDir,
        overwrite: options.overwrite === true,
        durations,
        ignoresCase: caseIgnored(ignoresCase),
      },
    ).finally(() => spinner.stop());

    const { outcomes } = result;
    if (ctx.settings.json) printJson(ctx.io, outcomes);
    if (result.stoppedBy) {
      ctx.log.error(`stopped after a file-system problem: ${notStarted} file(s) not started`);
      if (result.stoppedBy.hint) ctx.streams.stderr.write(`hint: ${result.stoppedBy.hint}\n`);
    }
    const failed = outcomes.filter((o) => o.status === 'failed').length;
    if (!ctx.settings.json) {
      const done = outcomes.filter((o) => o.status === 'downloaded').length;
      ctx.log.info(`${done} downloaded, ${outcomes.length - done - failed} skipped, ${failed} failed`);
    }
    if (result.interrupted) return ExitCode.interrupted;
    return failed > 0 ? ExitCode.partial : ExitCode.ok;
  } catch (error) {
    if (interrupt.signal.aborted) {
      ctx.log.error('interrupted');
      return ExitCode.interrupted;
    }
    throw error;
  } finally {
    interrupt.dispose();
  }
}
