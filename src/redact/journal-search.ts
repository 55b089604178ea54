/**
 * Reads of the journals for a few job ids or upload names that a run does not hold: the look-up of
 * interrupted uploads asks them, only when there are some (see interrupted-look-up.ts).
 */
import type { JournalRecord } from './journal.js';
import { forEachLine } from './journal-lines.js';
import { readLine } from './journal-line.js';

/**
 * Each record of the journal files whose line holds one of `needles` (the others are not parsed): the
 * reads that look for a few job ids or upload names in the journals, which the run does not hold.
 * Records as the reader takes them (journal-line.ts); a line of a later format, which only a run of a
 * newer version started since can have written, is passed over.
 */
async function forEachRecordWith(
  paths: readonly string[],
  needles: readonly string[],
  visit: (record: JournalRecord) => void,
): Promise<void> {
  const patterns = needles.map((needle) => Buffer.from(needle));
  for (const path of paths) {
    await forEachLine(
      path,
      (line) => {
        if (!patterns.some((pattern) => line.includes(pattern))) return;
        let parsed: unknown;
        try {
          parsed = JSON.parse(line.toString('utf8'));
        } catch {
          return;
        }
        const reading = readLine(parsed);
        if (reading.kind === 'record') visit(reading.record);
      },
      () => {},
    );
  }
}

/**
 * Which of `among` the journal files name: those jobs belong to known inputs, so the look-up of
 * interrupted uploads passes them over. Read again only when there are interrupted uploads, and
 * bounded by the jobs asked about: every job id the journals name, held through every run, was
 * 100 MB over 1,000,000 inputs whose results came from jobs.
 */
export async function jobIdsNamed(
  paths: readonly string[],
  among: ReadonlySet<string>,
): Promise<Set<string>> {
  const named = new Set<string>();
  if (among.size === 0) return named;
  await forEachRecordWith(paths, ['"jobId"'], ({ event, jobId }) => {
    if (event !== 'withdrawn' && typeof jobId === 'string' && among.has(jobId)) named.add(jobId);
  });
  return named;
}

/** An upload as its `uploading` line tells it. */
export type UploadLine = Pick<
  JournalRecord,
  'input' | 'size' | 'mtimeMs' | 'options' | 'durationSec' | 'inputSha256'
> & { uploadName: string };

/**
 * The `uploading` lines that carried one of `names`, by input: the uploads of interrupted inputs that
 * jobs read by the look-up list. Bounded by the names asked about (one line each).
 */
export async function uploadsNamed(
  paths: readonly string[],
  names: ReadonlySet<string>,
): Promise<Map<string, UploadLine[]>> {
  const byInput = new Map<string, UploadLine[]>();
  const seen = new Set<string>();
  if (names.size === 0) return byInput;
  // A submitted line whose job id cannot be used is read as the upload it names (journal-line.ts).
  await forEachRecordWith(paths, ['"uploading"', '"submitted"'], (record) => {
    const { event, uploadName, input, size, mtimeMs, options, durationSec, inputSha256 } = record;
    if (event !== 'uploading' || uploadName === undefined || !names.has(uploadName) || seen.has(uploadName))
      return;
    seen.add(uploadName);
    const line: UploadLine = {
      input,
      uploadName,
      size,
      mtimeMs,
      options,
      // Checked like the rest of a line: what another writer put there is data.
      durationSec: typeof durationSec === 'number' ? durationSec : undefined,
      inputSha256: typeof inputSha256 === 'string' ? inputSha256 : undefined,
    };
    const lines = byInput.get(input);
    if (lines) lines.push(line);
    else byInput.set(input, [line]);
  });
  return byInput;
}

/** The record that last claimed an output for another input: it is that input's output. */
export interface OutputClaim {
  input: string;
  event: JournalRecord['event'];
  at: string;
}

/**
 * Which of `outputs` (output → the real path of the input asking) the journals give to another input,
 * by its latest line naming it (done, submitted, or an upload). Bounded by the outputs asked about.
 */
export async function outputsClaimed(
  paths: readonly string[],
  outputs: ReadonlyMap<string, string>,
): Promise<Map<string, OutputClaim>> {
  const claimed = new Map<string, OutputClaim>();
  if (outputs.size === 0) return claimed;
  await forEachRecordWith(paths, ['"output"'], ({ event, output, input, at }) => {
    if (event !== 'done' && event !== 'submitted' && event !== 'uploading') return;
    if (typeof output !== 'string' || !outputs.has(output) || outputs.get(output) === input) return;
    const known = claimed.get(output);
    if (!known || known.at <= at) claimed.set(output, { input, event, at });
  });
  return claimed;
}
