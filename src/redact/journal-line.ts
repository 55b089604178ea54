/**
 * What one parsed journal line is to every reader of the journals (a run, its compaction and
 * look-ups, `vredact status`): a record as the re-run rules take it, damage (skipped and counted), or
 * a line of a later format, which this version must not read as its own: a run that did could skip,
 * send again or mis-collect files, and its compaction would rewrite the line in the old format.
 */
import { jobIdProblem } from '../api/identifiers.js';
import { CliError, ExitCode } from '../errors.js';
import { displayText } from '../output/sanitize.js';
import type { JournalRecord } from './journal.js';

/** The format this version writes and reads (`v` on every line). */
export const JOURNAL_FORMAT = 1;

export type LineReading =
  { kind: 'record'; record: JournalRecord } | { kind: 'damaged' } | { kind: 'newer'; format: number };

/**
 * A lone surrogate (`"\ud800"` in a damaged line): no real path holds one, and the tables keep paths as
 * UTF-8, where it would become U+FFFD and take the record of a real path spelled so.
 */
const LONE_SURROGATE = /[\ud800-\udfff]/u;

/** Whether a line of this version's format holds what every record has. */
export function isRecord(value: unknown): value is JournalRecord {
  if (!value || typeof value !== 'object') return false;
  const record = value as Partial<JournalRecord>;
  return (
    typeof record.input === 'string' &&
    !LONE_SURROGATE.test(record.input) &&
    typeof record.event === 'string' &&
    typeof record.at === 'string' &&
    typeof record.size === 'number' &&
    typeof record.mtimeMs === 'number' &&
    typeof record.options === 'string' &&
    // An `uploading` line is of use only with its start time and upload name; a `withdrawn` one names it too.
    (record.event !== 'uploading' ||
      (typeof record.uploadName === 'string' &&
        record.uploadName !== '' &&
        Number.isFinite(Date.parse(record.at)))) &&
    (record.event !== 'withdrawn' || typeof record.uploadName === 'string')
  );
}

/** What `status` says of an input whose last line is a `submitted` one whose job id cannot be used. */
export const JOBLESS_REASON =
  'its submitted line names no job id that can be used: the next run looks for its job by its upload name first, then sends it again';

/** Whether a `submitted` line's job can be collected: the client builds no request from any other. */
function isUsableJobId(jobId: unknown): jobId is string {
  return typeof jobId === 'string' && jobIdProblem(jobId) === undefined;
}

/**
 * Reads a parsed line. The version is looked at first: a later format may name its fields otherwise.
 * A line with no version, or one no vredact wrote (`"1"`, 1.5, 0), is damage, as any line that is
 * not a record. A `submitted` line whose job id is missing or cannot be used (edited by hand,
 * damaged) is read as the upload it names: cut short, its job looked up by that exact upload name
 * before the file is sent again. Its job may exist; sent blindly, the file would be redacted twice.
 */
export function readLine(parsed: unknown): LineReading {
  if (!parsed || typeof parsed !== 'object') return { kind: 'damaged' };
  const { v } = parsed as { v?: unknown };
  if (typeof v === 'number' && Number.isInteger(v) && v > JOURNAL_FORMAT) return { kind: 'newer', format: v };
  if (v !== JOURNAL_FORMAT || !isRecord(parsed)) return { kind: 'damaged' };
  if (parsed.event !== 'submitted' || isUsableJobId(parsed.jobId)) return { kind: 'record', record: parsed };
  const { jobId: _unusable, ...upload } = parsed;
  const record: JournalRecord = { ...upload, event: 'uploading', reason: JOBLESS_REASON };
  return isRecord(record) ? { kind: 'record', record } : { kind: 'damaged' };
}

/** A line of a later format: the run stops before it sends or rewrites anything; status stops too. */
export function newerFormatError(path: string, line: number, format: number): CliError {
  return new CliError(
    `line ${line} of the journal ${displayText(path)} was written by a newer vredact (journal format ${format}; this version reads ${JOURNAL_FORMAT}): upgrade vredact to go on`,
    ExitCode.usage,
    'nothing was sent or changed; run the same command again with the newer vredact',
  );
}
