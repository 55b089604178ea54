/**
 * The manifest: one CSV row per done file, the record a compliance team keeps of what was redacted,
 * from which bytes, into which bytes, by which job and to which voice, and when (the redaction's time,
 * not that of a later run that found the input touched and journaled it again).
 */
import type { StatusRecord, Voice } from './records.js';
import { shownTime, VOICE_FIELDS } from './records.js';
import { outputPath } from './summary.js';

export const MANIFEST_COLUMNS = [
  'input_path',
  'input_sha256',
  'output_path',
  'output_sha256',
  'job_id',
  'target_voice',
  'done_at',
] as const;
export type ManifestRow = Record<(typeof MANIFEST_COLUMNS)[number], string>;

/** RFC 4180 ends records with CRLF; every CSV reader accepts it. */
export const CSV_EOL = '\r\n';

/**
 * One RFC 4180 field: quoted when it holds a comma, a quote, CR or LF, quotes doubled. Written here
 * rather than taken from a CSV library: this is the whole of the rule, and the row is fixed.
 */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function csvLine(fields: readonly string[]): string {
  return fields.map(csvField).join(',') + CSV_EOL;
}

// `;` and `=` separate the pairs; `%` escapes; a value (an avatar is free text) keeps all three readable.
function voiceValue(value: string): string {
  return value.replace(/[%;=]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** `age=senior-adult;gender=f`: the target-voice fields sent, in a fixed order; empty when none were. */
export function targetVoice(voice: Voice | undefined): string {
  if (!voice) return '';
  const pairs: string[] = [];
  for (const field of VOICE_FIELDS) {
    const value = voice[field];
    if (value !== undefined) pairs.push(`${field}=${voiceValue(value)}`);
  }
  return pairs.join(';');
}

export function manifestRow(outDir: string, record: StatusRecord): ManifestRow {
  return {
    input_path: record.input,
    input_sha256: record.inputSha256 ?? '',
    output_path: outputPath(outDir, record.output),
    output_sha256: record.outputSha256 ?? '',
    job_id: record.jobId ?? '',
    target_voice: targetVoice(record.voice),
    done_at: shownTime(record),
  };
}

export const MANIFEST_HEADER = csvLine(MANIFEST_COLUMNS);

/** One CSV record; `show` transforms each field first (escaping for a terminal). */
export function manifestLine(row: ManifestRow, show: (field: string) => string = (field) => field): string {
  return csvLine(MANIFEST_COLUMNS.map((column) => show(row[column])));
}
