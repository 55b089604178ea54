import { resolve } from 'node:path';
import { listedDurationSeconds } from '../../api/audio-duration.js';
import type { ApiClient } from '../../api/client.js';
import {
  fileNameProblem as unusableNameProblem,
  requireUserFileName,
  requireUserJobId,
} from '../../api/identifiers.js';
import { fileNameProblem, isNamed } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import {
  type DownloadItem,
  downloadFiles,
  type DownloadOutcome,
  INTERRUPTED_IN_FLIGHT_REASON,
  namedFiles,
} from '../../download/download-files.js';
import { downloadProgressLine } from '../../download/progress.js';
import type { ItemSource } from '../../download/pull-pool.js';
import { ExitCode, UsageError } from '../../errors.js';
import { NoRoomOnDisk } from '../../fs/free-space.js';
import { caseIgnored } from '../../fs/letter-case.js';
import { checkOutputFolderWritable } from '../../fs/writable.js';
import {
  createInterruptController,
  interruptedLine,
  type InterruptWords,
  listenForInterrupts,
} from '../../interrupt.js';
import { sweepPartials } from '../../redact/sweep.js';
import { displayText, truncate } from '../../output/sanitize.js';
import { countsLineWanted, startStatusLine } from '../../output/status-line.js';
import { jsonArrayElement, jsonArrayEnd, LineBatches } from '../jobs/write-lines.js';

export type { DownloadOutcome };

const DOWNLOAD_WORDS: InterruptWords = {
  transfer: 'download',
  rerun: 'fetch the files not yet saved (what is saved is skipped)',
};

/**
 * Every file of the job, as its listing is read; each listed duration bounds its file's size. An item
 * with no name as text, and an element that is no item, are handed on too, named by their place (and
 * id), to fail alone.
 */
function listedFiles(client: ApiClient, jobId: string): ItemSource<DownloadItem> {
  return (sink, signal) => {
    let position = 0;
    return client.eachContentItem(
      jobId,
      {
        add: (item, givenFileName) => {
          position++;
          const id = item.id ? ` (id ${truncate(item.id, 40)})` : '';
          if (!isNamed(item))
            return sink.add({
              fileName: '',
              nameless: `item ${position} of the job${id}: ${fileNameProblem(item)}`,
            });
          // A name no request may carry (empty, `..`, control characters) is the listing's fault, said
          // of its item, not a failed request's (whose hint was to check the base URL).
          const unusable = unusableNameProblem(givenFileName ?? item.file_name);
          if (unusable !== undefined)
            return sink.add({
              fileName: item.file_name,
              nameless: `item ${position} of the job${id}: its file name cannot be used (${unusable})`,
            });
          sink.add({
            fileName: item.file_name,
            ...(givenFileName === undefined ? {} : { givenFileName }),
            duration: listedDurationSeconds(item.audio_duration),
            listedDuration: item.audio_duration,
          });
        },
        // Counted in the positions too, so the items after it are named by their own place.
        leftOut: (at, problem) => {
          position++;
          sink.add({
            fileName: '',
            nameless: `item ${at} of the job: the service listed no file there (${problem})`,
          });
        },
        drain: () => sink.drain(),
      },
      { signal },
    );
  };
}

/**
 * The summary's pending count, saying why: `, 2 pending (interrupted)` (aborted in flight), `, 4
 * pending (not started)`, or both, `, 6 pending (2 interrupted, 4 not started)`; nothing for none.
 */
function pendingCount(pending: number, aborted: number): string {
  if (pending === 0) return '';
  const notStarted = pending - aborted;
  const why =
    aborted === 0
      ? 'not started'
      : notStarted === 0
        ? 'interrupted'
        : `${aborted} interrupted, ${notStarted} not started`;
  return `, ${pending} pending (${why})`;
}

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
  // Taken over before the first file is written (the probe below), so an interrupt at any point
  // after this ends cleanly: exit 130, nothing half-written left behind.
  const controller = createInterruptController();
  const dispose = listenForInterrupts(controller, ctx.io, ctx.log, DOWNLOAD_WORDS);
  const { stop } = controller.signals;
  try {
    // Before any request: a folder that cannot take the files is a usage error (exit 2), nothing sent.
    // The check's own file tells whether the folder ignores letter case, in a fresh, empty one too.
    const { ignoresCase } = await checkOutputFolderWritable(outDir);
    const swept = await sweepPartials([outDir], outDir);
    if (swept > 0) ctx.log.info(`removed ${swept} partial file(s) left by an earlier run`);
    stop.throwIfAborted();

    const json = ctx.settings.json;
    const out = new LineBatches(ctx.streams.stdout);
    const counts = { downloaded: 0, skipped: 0, failed: 0, pending: 0 };
    // Of the pending, those a second interrupt aborted in flight (the others were never started).
    let aborted = 0;
    const settled = () => counts.downloaded + counts.skipped + counts.failed + counts.pending;
    const startedAt = ctx.clock.now();
    // Fitted to the width as redact's is, with `--stats` lines in a log.
    const status = await startStatusLine(ctx.io, (columns) =>
      downloadProgressLine(
        { counts, total: requested.length, inFlight: controller.inFlight().transfers, startedAt },
        ctx.clock.now(),
        columns,
      ),
    );
    // Printed as each file settles, and awaited: a stdout that is slow to read holds the downloads.
    const show = async (outcome: DownloadOutcome) => {
      const before = settled();
      counts[outcome.status]++;
      const abortedInFlight = outcome.status === 'pending' && outcome.reason === INTERRUPTED_IN_FLIGHT_REASON;
      if (abortedInFlight) aborted++;
      if (json) out.push(jsonArrayElement(outcome, before));
      // Aborted in flight (at most -c of them): a line each, as redact gives such an upload.
      else if (abortedInFlight) ctx.log.warn(`${displayText(outcome.fileName)}: ${outcome.reason}`);
      // Not started: counted in the summary, not a line each (a stop leaves hundreds).
      else if (outcome.status === 'pending') return;
      else if (outcome.status === 'downloaded') out.push(`${displayText(outcome.path ?? '')}\n`);
      else if (outcome.status === 'skipped')
        ctx.log.info(`skipped ${displayText(outcome.fileName)}: ${outcome.reason}`);
      else {
        // A nameless item's reason names it by its place in the listing.
        const reason = displayText(outcome.reason ?? 'failed');
        ctx.log.error(outcome.fileName ? `${displayText(outcome.fileName)}: ${reason}` : reason);
      }
      await out.flush();
    };
    const result = await downloadFiles(
      { client, concurrency: ctx.settings.concurrency, signals: controller.signals, onOutcome: show },
      {
        jobId,
        source: requested.length > 0 ? namedFiles(requested) : listedFiles(client, jobId),
        outDir,
        overwrite: options.overwrite === true,
        ignoresCase: caseIgnored(ignoresCase),
      },
    ).finally(async () => {
      status.stop();
      // What settled is a whole JSON array, whatever ended the run.
      if (json) out.push(jsonArrayEnd(settled()));
      await out.flush();
    });

    const { downloaded, skipped, failed, pending } = counts;
    if (settled() === 0 && !result.interrupted) {
      ctx.log.info(`Job ${displayText(jobId)} has no files yet.`);
    }
    if (result.stoppedBy) {
      const why =
        result.stoppedBy instanceof NoRoomOnDisk
          ? 'stopped: not enough free space'
          : 'stopped after a file-system problem';
      ctx.log.error(`${why}: ${pending} file(s) not started`);
      // A hint may name the output folder, whose name may hold an escape sequence.
      if (result.stoppedBy.hint) ctx.streams.stderr.write(`hint: ${displayText(result.stoppedBy.hint)}\n`);
    }
    // Under --quiet too when `--stats` lines are printed: a cron log ends with how the run ended.
    if (countsLineWanted(ctx.io)) {
      ctx.io.stderr.write(
        `${downloaded} downloaded, ${skipped} skipped, ${failed} failed${pendingCount(pending, aborted)}\n`,
      );
    }
    if (result.interrupted) {
      ctx.log.error(interruptedLine(DOWNLOAD_WORDS));
      return ExitCode.interrupted;
    }
    // Exit 0 only when every file asked for was done: one never started was not.
    return failed + pending > 0 ? ExitCode.partial : ExitCode.ok;
  } catch (error) {
    if (stop.aborted) {
      ctx.log.error(interruptedLine(DOWNLOAD_WORDS));
      return ExitCode.interrupted;
    }
    throw error;
  } finally {
    dispose();
  }
}
