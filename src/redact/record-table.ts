/**
 * The last journal record of each input, held as a run needs it: a re-run over 100,000 done files
 * holds 100,000 of them for the whole run. A record object with its time as a string cost about 290
 * bytes an input; here a done, failed or rejected record is a row of typed columns (its time in ms,
 * its options as an index into the few fingerprints there are), on its input's row (input-rows.ts:
 * the inputs are packed outside V8's heap). A record is built from its row only when it is asked
 * for, and is then a SettledRecord.
 * A run's table is built on its plan's inputs (KnownInputs): an input the plan has takes the plan's
 * row; its size and time, when they are those its discovery saw (a done input unchanged since), are
 * read from the plan, so a re-run over 1,000,000 done files holds about 15 bytes of record an input.
 * An `uploading` record is a row too, its upload on the streak beside the table (upload-streaks.ts),
 * and a `submitted` one: where its line is, when the journal files are kept open (a run), its line
 * read again when asked for (journal-lines-at.ts); else what collecting its job needs, packed beside
 * it (job-details.ts). Anything else (an odd value the columns cannot hold exactly) is kept whole.
 */
import type { JournalEvent, JournalRecord } from './journal.js';
import { InputRows } from './input-rows.js';
import type { KnownInputs, RecordStore } from './record-store.js';
import { Float64Column, NarrowUintColumn, Uint8Column } from './chunked-columns.js';
import type { OpenJournals } from './journal-lines-at.js';
import { SubmittedJobs } from './submitted-jobs.js';
import { DoneLines } from './done-lines.js';
import { Numbering } from './packed-strings.js';
import { canonicalMs, SettledRecord } from './settled-record.js';

export { SettledRecord } from './settled-record.js';
export type { KnownInputs } from './record-store.js';

/**
 * A row's code: 0 for no record, WHOLE a record kept whole, else the event's index in COLUMNAR + 1;
 * AS_SEEN added when the record's size and time are the known input's seen ones. An `uploading`
 * record keeps only what a settled one does: what its upload carried is on its streak's nodes, and in
 * the journal (see upload-streaks.ts).
 */
const WHOLE = 4;
const COLUMNAR: readonly (JournalEvent | undefined)[] = [
  'done',
  'failed',
  'rejected',
  undefined,
  'uploading',
  'submitted',
];
const SUBMITTED = COLUMNAR.indexOf('submitted');
const DONE = COLUMNAR.indexOf('done');
const NONE = 0;
const AS_SEEN = 0x80;
const EVENT = 0x7f;

export class RecordTable implements RecordStore {
  readonly #rows: InputRows;
  readonly #event = new Uint8Column();
  readonly #atMs = new Float64Column();
  readonly #size = new Float64Column();
  readonly #mtimeMs = new Float64Column();
  readonly #options = new NarrowUintColumn();
  /** The journal file each row's record came from (its index in the order read). */
  readonly #source = new NarrowUintColumn();
  /** The last journal file (its index + 1) that named each row's input: files count their inputs. */
  readonly #namedIn = new NarrowUintColumn();
  /** Plain arrays, filled only as far as the last row that has one: most records have neither. */
  readonly #notes: boolean;
  readonly #jobId: (string | undefined)[] = [];
  readonly #reason: (string | undefined)[] = [];
  /** What collecting a submitted record's job needs, or where its line is. */
  readonly #submitted: SubmittedJobs;
  /** Where a done line is, for a done input whose time alone changed (done-lines.ts). */
  readonly #doneLines: DoneLines;
  /** Rows whose record is kept as an object. */
  readonly #whole = new Map<number, JournalRecord>();
  /** Rows whose time is not one the ms give back exactly: compared and given back as written. */
  readonly #atText = new Map<number, string>();
  readonly #fingerprints = new Numbering<string>();
  /** The last time converted: `loses` and `put` see the same record one after the other. */
  #lastAt = '';
  #lastAtMs = NaN;

  /** Rows that hold a record. */
  #count = 0;

  /**
   * `notes: false`: the job id of a record and the reason of a done or failed one are not kept (a
   * run's decisions read neither; `status` shows both). Over 1,000,000 inputs whose results came from
   * jobs, their job ids were 60 MB of a run's heap. A rejected record's reason is kept: a run that
   * rejects the input again for the same reason journals no second line. `jobs: false`: nothing of
   * a submitted record is kept but what the re-run rules compare (compaction copies its line).
   * `lines`: the journal files being read, kept open: a submitted record read with its place (see
   * journal-lines-at.ts) keeps only that.
   */
  constructor(
    known?: KnownInputs,
    { notes = true, jobs = true, lines }: { notes?: boolean; jobs?: boolean; lines?: OpenJournals } = {},
  ) {
    this.#notes = notes;
    this.#submitted = new SubmittedJobs({ jobs, lines });
    this.#doneLines = new DoneLines(lines);
    this.#rows = new InputRows(known);
  }

  get size(): number {
    return this.#count;
  }

  has(input: string): boolean {
    const row = this.#rows.rowOf(input);
    return row !== undefined && this.#event.get(row) !== NONE;
  }

  /** A store that keeps more of a record (status, compaction) gives it back from getFor. */
  get(input: string): JournalRecord | undefined {
    return this.getFor(input, undefined);
  }

  /**
   * The record of `input`, found by its row of the known inputs when it has one: no look-up by path,
   * so a run can let the known inputs' index go once the journals are read.
   */
  getFor(input: string, knownRow: number | undefined): JournalRecord | undefined {
    const row = this.rowFor(input, knownRow);
    return row === undefined || this.#event.get(row) === NONE ? undefined : this.#record(row, input);
  }

  /** An input's row: `knownRow` when the table is built on known inputs, else looked up by path. */
  rowFor(input: string, knownRow?: number): number | undefined {
    return knownRow !== undefined && this.#rows.known !== undefined ? knownRow : this.#rows.rowOf(input);
  }

  /** An empty table on the same inputs, keeping the same notes (the records before upload streaks). */
  emptyLike(): RecordTable {
    return new RecordTable(this.#rows.known, { notes: this.#notes, ...this.#submitted.options });
  }

  /**
   * Forgets an input's record (its only line was an upload withdrawn since). Rare: its row stays,
   * marked empty, and is used again if the input comes back.
   */
  delete(input: string): boolean {
    const row = this.#rows.rowOf(input);
    if (row === undefined || this.#event.get(row) === NONE) return false;
    this.#event.set(row, NONE);
    this.#count--;
    this.#whole.delete(row);
    this.#atText.delete(row);
    this.#clearExtras(row);
    return true;
  }

  /** The one string held for a fingerprint: every record of a run has the same few. */
  intern(options: string): string {
    return this.#fingerprints.valueOf(this.#fingerprints.numberOf(options));
  }

  /** The event of an input's last record, without building the record. */
  eventOf(input: string): JournalEvent | undefined {
    const row = this.#rows.rowOf(input);
    if (row === undefined) return undefined;
    const code = this.#event.get(row) & EVENT;
    if (code === NONE) return undefined;
    return code === WHOLE ? this.#whole.get(row)?.event : COLUMNAR[code - 1];
  }

  /** The journal file (its index in the order read) that an input's record came from. */
  sourceOf(input: string): number | undefined {
    const row = this.#rows.rowOf(input);
    return row === undefined || this.#event.get(row) === NONE ? undefined : this.#source.get(row);
  }

  firstNamedIn(input: string, source: number): boolean {
    const row = this.#rows.rowOf(input);
    if (row === undefined || this.#namedIn.get(row) === source + 1) return false;
    this.#namedIn.set(row, source + 1);
    return true;
  }

  /**
   * Whether a record read from journal file `source` loses to the one held: within one file the
   * later line wins (a clock may step back); between files, the later `at`.
   */
  loses(record: JournalRecord, source: number): boolean {
    const row = this.#rows.rowOf(record.input);
    if (row === undefined || this.#source.get(row) === source) return false;
    const held = this.#whole.get(row)?.at ?? this.#atText.get(row);
    if (held === undefined) {
      const ms = this.#msOf(record.at);
      if (!Number.isNaN(ms)) return this.#atMs.get(row) > ms;
    }
    return (held ?? new Date(this.#atMs.get(row)).toISOString()) > record.at;
  }

  /** Holds `record` as the last of its input; only the fields a SettledRecord has are kept of a row. */
  put(record: JournalRecord, source: number): void {
    const row = this.#rows.rowOf(record.input) ?? this.#rows.add(record.input);
    if (this.#event.get(row) === NONE) this.#count++;
    this.#source.set(row, source);
    this.#whole.delete(row);
    this.#atText.delete(row);
    const code = COLUMNAR.indexOf(record.event);
    const { reason } = record;
    const submitted = code === SUBMITTED;
    // A submitted record's job id is with its details.
    const jobId = submitted ? undefined : record.jobId;
    this.#submitted.clear(row);
    this.#doneLines.clear(row);
    const regular =
      code >= 0 &&
      (jobId === undefined || typeof jobId === 'string') &&
      (reason === undefined || typeof reason === 'string') &&
      (!submitted || this.#submitted.hold(row, record));
    if (!regular) {
      this.#event.set(row, WHOLE);
      this.#whole.set(row, record);
      this.#clearExtras(row);
      return;
    }
    const ms = this.#msOf(record.at);
    this.#atMs.set(row, ms);
    if (Number.isNaN(ms)) this.#atText.set(row, record.at);
    const known = row < this.#rows.knownRows ? this.#rows.known : undefined;
    const asSeen =
      known !== undefined &&
      Object.is(record.size, known.seenSizeAt(row)) &&
      Object.is(record.mtimeMs, known.seenMtimeMsAt(row));
    this.#event.set(row, code + 1 + (asSeen ? AS_SEEN : 0));
    if (!asSeen) {
      this.#size.set(row, record.size);
      this.#mtimeMs.set(row, record.mtimeMs);
      // The size its discovery saw, its time another: the file may be this line's bytes touched.
      const seenSize = known?.seenSizeAt(row) ?? NaN;
      if (code === DONE && known && (seenSize < 0 || seenSize === record.size))
        this.#doneLines.hold(row, record);
    }
    this.#options.set(row, this.#fingerprints.numberOf(record.options));
    const note = this.#notes || record.event === 'rejected';
    if (this.#notes && (jobId !== undefined || row < this.#jobId.length)) this.#jobId[row] = jobId;
    if ((note && reason !== undefined) || row < this.#reason.length)
      this.#reason[row] = note ? reason : undefined;
  }

  *entries(): IterableIterator<[string, JournalRecord]> {
    for (const input of this.keys()) yield [input, this.#record(this.#rows.rowOf(input) as number, input)];
  }

  *keys(): IterableIterator<string> {
    const rows = this.#rows.length;
    for (let row = 0; row < rows; row++) {
      // inputAt makes it the last input looked up: a caller asks for the one it was just given.
      if (this.#event.get(row) !== NONE) yield this.#rows.inputAt(row);
    }
  }

  /** Only done rows are built: no submitted line is read again from its journal on the way. */
  *doneRecords(): IterableIterator<JournalRecord> {
    const rows = this.#rows.length;
    for (let row = 0; row < rows; row++) {
      const code = this.#event.get(row) & EVENT;
      if (code === DONE + 1 || (code === WHOLE && this.#whole.get(row)?.event === 'done'))
        yield this.#record(row, this.#rows.inputAt(row));
    }
  }

  *values(): IterableIterator<JournalRecord> {
    for (const [, record] of this.entries()) yield record;
  }

  [Symbol.iterator](): IterableIterator<[string, JournalRecord]> {
    return this.entries();
  }

  #record(row: number, input: string): JournalRecord {
    const code = this.#event.get(row);
    if ((code & EVENT) === WHOLE) return this.#whole.get(row) as JournalRecord;
    const known = code & AS_SEEN ? this.#rows.known : undefined;
    const event = COLUMNAR[(code & EVENT) - 1] as JournalEvent;
    const at = this.#atText.get(row) ?? new Date(this.#atMs.get(row)).toISOString();
    const size = known ? known.seenSizeAt(row) : this.#size.get(row);
    const mtimeMs = known ? known.seenMtimeMsAt(row) : this.#mtimeMs.get(row);
    const options = this.#fingerprints.valueOf(this.#options.get(row));
    if (event === 'submitted') return this.#submitted.recordOf(row, at, input, size, mtimeMs, options);
    if (event === 'done') {
      const line = this.#doneLines.recordOf(row, input, at);
      if (line) return line;
    }
    return new SettledRecord(event, at, input, size, mtimeMs, options, this.#jobId[row], this.#reason[row]);
  }

  #clearExtras(row: number): void {
    this.#submitted.clear(row);
    this.#doneLines.clear(row);
    if (row < this.#jobId.length) this.#jobId[row] = undefined;
    if (row < this.#reason.length) this.#reason[row] = undefined;
  }

  #msOf(at: string): number {
    if (at !== this.#lastAt) {
      this.#lastAt = at;
      this.#lastAtMs = canonicalMs(at);
    }
    return this.#lastAtMs;
  }
}
