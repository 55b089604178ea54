/**
 * Inputs whose last record is an upload cut short, as the next run will take them. A synchronous
 * upload leaves no job to find, so the run then does what the record before the uploads says:
 *
 * - that record is `done` for the same file (size, time and options) and its output is still there
 *   (a `--overwrite` run killed mid-upload): the run skips the file as done, so status says done,
 *   with that record, and the manifest lists it;
 * - the last upload began with no output at the file's place, and one stands there now (a run killed
 *   between saving a result and journaling it): the run checks it and records it done (see
 *   redact/adopt.ts), so status says so;
 * - there is none before the uploads, and an output stands at the file's place that the upload's line
 *   cannot vouch for (a line of an older version): the run leaves it, so status says so instead of
 *   "sends it again".
 */
import { type JournalRecord, sameIdentity } from '../redact/journal.js';
import type { UploadStreaks } from '../redact/upload-streaks.js';
import { outputThere as outputIn } from './earlier-output.js';

export const UNVOUCHED_OUTPUT_REASON =
  'upload interrupted; its output exists, but no done line vouches for it: the next run leaves it (--overwrite redoes it)';

/** The same, when the upload's line says no output stood there as it began: it published that one. */
export const SAVED_OUTPUT_REASON =
  'upload interrupted after its result was saved: the next run checks that output and records it done';

export interface CutShortView {
  /** The `done` record the next run will stand on, for an input whose last record is `uploading`. */
  doneBefore(last: JournalRecord): JournalRecord | undefined;
  /** Why the input is pending, when the next run will not send it again on its own. */
  reason(last: JournalRecord): string | undefined;
}

export function cutShortView(outDir: string, streaks: UploadStreaks): CutShortView {
  const outputThere = (output: string | undefined) => outputIn(outDir, output);
  const doneBefore = (last: JournalRecord) => {
    // An output that appeared after the upload began is that upload's, not the earlier done one's.
    if (streaks.get(last.input)?.lastSawNoOutput) return undefined;
    const before = streaks.beforeOf(last.input);
    if (before?.event !== 'done' || !sameIdentity(before, last)) return undefined;
    return outputThere(before.output) ? before : undefined;
  };
  return {
    doneBefore,
    reason: (last) => {
      if (!outputThere(last.output)) return undefined;
      if (streaks.get(last.input)?.lastSawNoOutput) return SAVED_OUTPUT_REASON;
      return streaks.beforeOf(last.input) === undefined ? UNVOUCHED_OUTPUT_REASON : undefined;
    },
  };
}
