/**
 * What the reader of journals asks of a store of records (see journal-read.ts): RecordTable holds
 * what a run's decisions need, as typed columns; WholeRecords every field of every record (tests
 * compare the two); status and compaction extend RecordTable with their own columns.
 */
import type { JournalRecord } from './journal.js';
import type { BeforeStore, StreakHost } from './upload-streaks.js';

/**
 * The inputs a table is built on: rows 0 to length - 1 are theirs. Looked up by real path while the
 * journals are read; a run asks for each input's record by its row after (RecordTable#getFor).
 */
export interface KnownInputs {
  readonly length: number;
  /** The row of an input, or -1. */
  rowOf(input: string): number;
  inputAt(row: number): string;
  /** The input's size and time as its discovery saw them: a record that has the same keeps neither. */
  seenSizeAt(row: number): number;
  seenMtimeMsAt(row: number): number;
}

/** The last record of each input, by its real path: what runs, compaction and tests read of a state. */
export interface RecordsByInput extends Iterable<[string, JournalRecord]> {
  readonly size: number;
  get(input: string): JournalRecord | undefined;
  has(input: string): boolean;
  keys(): IterableIterator<string>;
  values(): IterableIterator<JournalRecord>;
  entries(): IterableIterator<[string, JournalRecord]>;
}

/** How a state holds its last records: compared and replaced as lines are read. */
export interface RecordStore extends RecordsByInput, StreakHost, BeforeStore {
  /** Whether `record`, read from journal file `source`, loses to the one held for its input. */
  loses(record: JournalRecord, source: number): boolean;
  put(record: JournalRecord, source: number): void;
  /** Forgets an input's record (its only line was an upload withdrawn since). */
  delete(input: string): boolean;
  /** The one string held for a fingerprint. */
  intern(options: string): string;
  /** Notes, once its record is applied, that file `source` names `input`: true the first time. */
  firstNamedIn(input: string, source: number): boolean;
  /** The record of `input`, given its row of the inputs the store was built on, if any (see RecordTable). */
  getFor(input: string, knownRow: number | undefined): JournalRecord | undefined;
  /** The last records that are `done`, of every input (hard-link matching, see journaled-links.ts). */
  doneRecords(): IterableIterator<JournalRecord>;
}

/**
 * Every record kept whole, every field: within one file the later line wins, between files the later
 * `at`. The reference the typed tables are tested against.
 */
export class WholeRecords extends Map<string, JournalRecord> implements RecordStore {
  readonly #sources = new Map<string, number>();
  readonly #namedIn = new Map<string, number>();
  /** Each input's row, for the streaks beside the store: given on first put, never taken back. */
  readonly #rows = new Map<string, number>();

  loses(record: JournalRecord, source: number): boolean {
    const prior = this.get(record.input);
    return prior !== undefined && this.#sources.get(record.input) !== source && prior.at > record.at;
  }

  put(record: JournalRecord, source: number): void {
    this.#sources.set(record.input, source);
    if (!this.#rows.has(record.input)) this.#rows.set(record.input, this.#rows.size);
    this.set(record.input, record);
  }

  override delete(input: string): boolean {
    this.#sources.delete(input);
    return super.delete(input);
  }

  intern(options: string): string {
    return options;
  }

  getFor(input: string): JournalRecord | undefined {
    return this.get(input);
  }

  rowFor(input: string): number | undefined {
    return this.#rows.get(input);
  }

  *doneRecords(): IterableIterator<JournalRecord> {
    for (const record of this.values()) if (record.event === 'done') yield record;
  }

  emptyLike(): WholeRecords {
    return new WholeRecords();
  }

  firstNamedIn(input: string, source: number): boolean {
    if (this.#namedIn.get(input) === source) return false;
    this.#namedIn.set(input, source);
    return true;
  }
}
