/**
 * Inputs whose last record is an upload cut short, as the next run will take them. A synchronous
 * upload leaves no job to find, so the run then does what the record before the uploads says:
 *
 * - that record is `done` for the same file (size, time and options) and its output is still there
 *   (a `--overwrite` run killed mid-upload): the run skips the file as done, so status says done,
 *   with that record, and the manifest lists it;
 * - there is none, and an output stands at the file's place (a run killed between saving a result
 *   and journaling it): the run leaves it, as an output no done line vouches for, so status says
 *   so instead of "sends it again".
 */
import { existsSync } from 'node:fs';
import { type JournalRecord, sameIdentity } from '../redact/journal.js';
import type { UploadStreaks } from '../redact/upload-streaks.js';
import { outputPath } from './summary.js';

export const UNVOUCHED_OUTPUT_REASON =
  'upload interrupted; its output exists, but no done line vouches for it: the next run leaves it (--overwrite redoes it)';

export interface CutShortView {
  /** The `done` record the next run will stand on, for an input whose last record is `uploading`. */
  doneBefore(last: JournalRecord): JournalRecord | undefined;
  /** Why the input is pending, when the next run will not send it again on its own. */
  reason(last: JournalRecord): string | undefined;
}

export function cutShortView(outDir: string, streaks: UploadStreaks): CutShortView {
  const outputThere = (output: string | undefined) =>
    output !== undefined && output !== '' && existsSync(outputPath(outDir, output));
  const doneBefore = (last: JournalRecord) => {
    const before = streaks.beforeOf(last.input);
    if (before?.event !== 'done' || !sameIdentity(before, last)) return undefined;
    return outputThere(before.output) ? before : undefined;
  };
  return {
    doneBefore,
    reason: (last) =>
      streaks.beforeOf(last.input) === undefined && outputThere(last.output)
        ? UNVOUCHED_OUTPUT_REASON
        : undefined,
  };
}
