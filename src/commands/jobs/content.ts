import { fileNameShown, givenOrNull, type JobContentItem } from '../../api/schemas.js';
import { listedDurationSeconds } from '../../api/audio-duration.js';
import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { formatDuration, formatTimestamp } from '../../output/format.js';
import type { Narrowable } from '../../output/table-layout.js';
import { startSpinner } from '../../output/spinner.js';
import { displayText } from '../../output/sanitize.js';
import { requireUserJobId } from '../../api/identifiers.js';
import { jsonArrayElement, jsonArrayEnd, LineBatches, printRows } from './write-lines.js';

/**
 * What gives way on a narrow terminal: the file name, wrapped inside its cell so that it is all
 * there, then the time (its date above its time and its `UTC`). The item id, which a user copies, never.
 */
const NARROWABLE: readonly Narrowable[] = [
  { column: 1, min: 12 },
  { column: 3, min: 10, words: true },
];

/** `forTable`: for a person's table, its time marked UTC; a pipe's line keeps it unmarked. */
function row(item: JobContentItem, forTable: boolean): string[] {
  return [
    item.id,
    fileNameShown(item),
    formatDuration(listedDurationSeconds(item.audio_duration)),
    formatTimestamp(item.created_at, forTable),
  ].map(displayText);
}

/**
 * The item as machine output gives it: an item the service listed without its job's id (read as
 * empty) is one of the job asked for, so it carries that id, never an empty one. An id or a time it
 * did not give is null (givenOrNull), as a file name or a duration not given is.
 */
function machineItem(item: JobContentItem, jobId: string) {
  return {
    ...item,
    id: givenOrNull(item.id),
    job_id: item.job_id === '' ? jobId : item.job_id,
    created_at: givenOrNull(item.created_at),
  };
}

/**
 * A job's files. In a pipe and as JSON each item is printed as it is read, and none is held: a job of
 * 100,000 files costs the memory of one batch of output. A terminal's table needs every row to align
 * its columns, so there they are held.
 */
export async function runJobsContent(ctx: Context, [given = '']: string[]): Promise<number> {
  const jobId = requireUserJobId(given);
  const client = await ctx.client();
  const spinner = await startSpinner(ctx.io, `Reading job ${displayText(jobId)}`);
  const json = ctx.settings.json;
  const rows: string[][] | undefined = !json && ctx.io.stdoutIsTTY ? [] : undefined;
  const out = new LineBatches(ctx.streams.stdout);
  let count = 0;
  let printed = false;
  // A reader gone (`| head -1`) wants no more: the listing is let go at once, not read to its end
  // (a job of a million files, or a listing that never ends, held the command until its limit).
  const readerGone = new AbortController();
  const stopWatching = ctx.io.onStdoutClosed(() => readerGone.abort());
  const listed = await client
    .eachContentItem(
      jobId,
      {
        add: (item) => {
          if (json) out.push(jsonArrayElement(machineItem(item, jobId), count));
          else if (rows) rows.push(row(item, true));
          else out.push(`${row(item, false).join('\t')}\n`);
          count++;
        },
        drain: async () => {
          // The spinner's line and the output never share the terminal.
          if (out.pending) {
            spinner.stop();
            printed = true;
          }
          await out.flush();
        },
      },
      { signal: readerGone.signal },
    )
    .then(
      () => true,
      async (error: unknown) => {
        if (ctx.io.stdoutClosed) return false;
        // An answer that breaks off once items are printed: stdout is still one JSON document (the
        // items read), and the error and the exit code say it is not the whole list.
        if (json && printed) {
          out.push(jsonArrayEnd(count));
          await out.flush();
        }
        throw error;
      },
    )
    .finally(() => {
      stopWatching();
      spinner.stop();
    });
  // Nobody reads on: ended quietly, as `jobs list | head -1` is.
  if (!listed) return ExitCode.ok;
  if (json) {
    out.push(jsonArrayEnd(count));
    await out.flush();
    return ExitCode.ok;
  }
  await out.flush();
  if (count === 0) ctx.log.info(`Job ${displayText(jobId)} has no files yet.`);
  if (rows) await printRows(ctx.io, ['ID', 'FILE NAME', 'DURATION', 'CREATED'], rows, NARROWABLE);
  return ExitCode.ok;
}
