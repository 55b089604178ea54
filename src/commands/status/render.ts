/**
 * How `vredact status` prints what the journals say: compact lines on a terminal, tab-separated lines
 * in a pipe, one JSON document with `--json`. Text from the journal that came from the service or
 * from a file name is escaped before a terminal or a TSV reader sees it; JSON escapes by its rules.
 */
import { isAbsolute, relative } from 'node:path';
import type { Context } from '../../context.js';
import { fitWidth } from '../../output/fit.js';
import { fitProblemLine } from '../../output/problem-line.js';
import { displayText, truncate } from '../../output/sanitize.js';
import { escapeJsonControls } from '../../output/table.js';
import type { StatusRecord } from '../../status/records.js';
import { stateOf } from '../../status/records.js';
import { describe, fileStatus, type StatusCounts } from '../../status/summary.js';
import type { LineWriter } from './write-lines.js';

export interface StatusView {
  /** The output folder, absolute. */
  outDir: string;
  journals: string[];
  counts: StatusCounts;
  unreadable: number;
  /** The records to list, in order, each built as it is listed. */
  listed: Iterable<StatusRecord>;
}

/**
 * `3 journaled inputs in redacted: 1 done, 1 pending, 1 failed, 0 rejected`; `, 2 uploading` after the
 * done ones only while a run sends some (no other time has any). It names what it counts: a run also
 * rejects inputs for its command line as a whole (two landing on one output), which no journal holds,
 * so its own count of rejections may be higher.
 */
export function countsLine(counts: StatusCounts, where: string): string {
  const inputs = `${counts.total} journaled input${counts.total === 1 ? '' : 's'}`;
  const uploading = counts.uploading > 0 ? ` ${counts.uploading} uploading,` : '';
  return `${inputs} in ${where}: ${counts.done} done,${uploading} ${counts.pending} pending, ${counts.failed} failed, ${counts.rejected} rejected`;
}

/** A path for a person: relative to the working folder when inside it. */
function shown(ctx: Context, path: string): string {
  const rel = relative(ctx.cwd, path);
  return displayText(rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path);
}

/** Each line cut to the terminal's width, as redact's problem lines: a long reason never wraps. */
export async function printTerminal(ctx: Context, out: LineWriter, view: StatusView): Promise<void> {
  const width = ctx.io.width('stdout');
  await out.write(`${fitWidth(countsLine(view.counts, shown(ctx, view.outDir)), width)}\n`);
  for (const record of view.listed) {
    const lead = `${stateOf(record.event, record.inFlight).padEnd(8)} `;
    const job = record.jobId === undefined ? '' : ` (job ${displayText(record.jobId)})`;
    const why = truncate(displayText(describe(record)));
    const line = fitProblemLine(lead, shown(ctx, record.input), `${why}${job}`, width);
    if (!(await out.write(`${line}\n`))) return;
  }
  await out.flush();
}

/** `state input reason job_id output at`, one line per file, no header (as every vredact pipe output). */
export async function printTsv(ctx: Context, out: LineWriter, view: StatusView): Promise<void> {
  ctx.log.info(countsLine(view.counts, displayText(view.outDir)));
  for (const record of view.listed) {
    const file = fileStatus(view.outDir, record);
    const fields = [file.state, file.input, describe(record), file.jobId ?? '', file.output, file.at].map(
      displayText,
    );
    if (!(await out.write(`${fields.join('\t')}\n`))) return;
  }
  await out.flush();
}

/** One JSON document, written a file at a time: `{outDir, journals, counts, unreadableLines, files: […]}`. */
export async function printJsonDocument(out: LineWriter, view: StatusView): Promise<void> {
  const head = {
    outDir: view.outDir,
    journals: view.journals,
    counts: view.counts,
    unreadableLines: view.unreadable,
  };
  // As every --json of vredact: DEL, C1 and the bidirectional controls escaped, the same JSON.
  await out.write(`${escapeJsonControls(JSON.stringify(head)).slice(0, -1)},"files":[`);
  let first = true;
  for (const record of view.listed) {
    const line = escapeJsonControls(JSON.stringify(fileStatus(view.outDir, record)));
    if (!(await out.write(`${first ? '' : ','}\n${line}`))) return;
    first = false;
  }
  await out.write(`${first ? '' : '\n'}]}\n`);
  await out.flush();
}
