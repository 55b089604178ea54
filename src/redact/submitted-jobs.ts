/**
 * What the table of last records holds of a `submitted` record beyond what the re-run rules compare:
 * where its line is, when the journal files are kept open (a run: the line is read again when the
 * record is asked for, see journal-lines-at.ts), else what collecting its job needs, packed (status,
 * see job-details.ts), or nothing (compaction, which copies its line).
 */
import { Float64Column } from './chunked-columns.js';
import { JobDetailsColumn } from './job-details.js';
import type { JournalRecord } from './journal.js';
import { type OpenJournals, placeOf } from './journal-lines-at.js';
import { SubmittedRecord } from './settled-record.js';

export interface SubmittedJobsOptions {
  /** Whether a job's details are kept at all. */
  jobs: boolean;
  /** The journal files being read, kept open. */
  lines?: OpenJournals | undefined;
}

export class SubmittedJobs {
  readonly options: SubmittedJobsOptions;
  /** Made when first needed: a table whose lines are kept open packs only a record read without its place. */
  #details: JobDetailsColumn | undefined;
  /** Where each row's line is (+ 1; 0 for none). */
  readonly #place = new Float64Column();

  constructor(options: SubmittedJobsOptions) {
    this.options = options;
    this.#details = options.jobs && !options.lines ? new JobDetailsColumn() : undefined;
  }

  /** Holds the job of a submitted record on its row; false when it cannot (then held whole). */
  hold(row: number, record: JournalRecord): boolean {
    this.clear(row);
    const place = this.options.lines ? placeOf(record) : undefined;
    if (place !== undefined) {
      this.#place.set(row, place + 1);
      return true;
    }
    return !this.options.jobs || (this.#details ??= new JobDetailsColumn()).set(row, record);
  }

  clear(row: number): void {
    this.#details?.clear(row);
    if (this.#place.get(row) !== 0) this.#place.set(row, 0);
  }

  /** The row's record, from the columns the table gives and what is held of its job here. */
  recordOf(
    row: number,
    at: string,
    input: string,
    size: number,
    mtimeMs: number,
    options: string,
  ): JournalRecord {
    const place = this.#place.get(row);
    if (place !== 0 && this.options.lines) return this.options.lines.recordAt(place - 1, input, at);
    const job = this.#details?.get(row);
    return new SubmittedRecord(
      at,
      input,
      size,
      mtimeMs,
      options,
      job?.jobId,
      job?.uploadName,
      job?.durationSec,
      job?.inputSha256,
    );
  }
}
