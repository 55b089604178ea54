/**
 * A record as a run's table gives it back (see record-table.ts), and the times the table holds as
 * numbers.
 */
import type { JournalEvent, JournalRecord } from './journal.js';

/**
 * A done, failed or rejected record as a run sees it: what the re-run rules compare, the job id and
 * the reason. The SHA-256s and the voice of a done record are for `status` and compaction.
 */
export class SettledRecord implements JournalRecord {
  constructor(
    readonly event: JournalEvent,
    readonly at: string,
    readonly input: string,
    readonly size: number,
    readonly mtimeMs: number,
    readonly options: string,
    readonly jobId: string | undefined,
    readonly reason: string | undefined,
  ) {}

  get v(): 1 {
    return 1;
  }
}

/** A `submitted` record as a run's table gives it back: what collecting its job needs. */
export class SubmittedRecord extends SettledRecord {
  constructor(
    at: string,
    input: string,
    size: number,
    mtimeMs: number,
    options: string,
    jobId: string | undefined,
    readonly uploadName: string | undefined,
    readonly durationSec: number | undefined,
    readonly inputSha256: string | undefined,
  ) {
    super('submitted', at, input, size, mtimeMs, options, jobId, undefined);
  }
}

/**
 * A time as `Date#toISOString` writes it with a day of month up to 28 and an hour up to 23: every
 * such text is a real instant, which Date.parse reads and toISOString gives back exactly.
 */
const PLAIN_ISO_TIME =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/**
 * An ISO time that `Date#toISOString` gives back exactly: held as its ms, compared as numbers.
 * Date.parse moves some texts to another day (`2026-02-30`, `T24:00`), so a time outside the plain
 * form is converted back and compared; the plain form (nine lines in ten) skips that round trip,
 * about 70 % of this function's cost over a journal.
 */
export function canonicalMs(at: string): number {
  if (at.length !== 24) return NaN;
  const ms = Date.parse(at);
  if (!Number.isFinite(ms)) return NaN;
  return PLAIN_ISO_TIME.test(at) || new Date(ms).toISOString() === at ? ms : NaN;
}
