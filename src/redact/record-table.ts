/**
 * The last journal record of each input, held as a run needs it: a re-run over 100,000 done files
 * holds 100,000 of them for the whole run. A record object with its time as a string cost about 290
 * bytes an input; here a done, failed or rejected record is a row of typed columns (its time in ms,
 * its options as an index into the few fingerprints there are), its input packed as UTF-8 outside
 * V8's heap, and two slots of an index from its input to its row (a map kept each input as a string
 * on the heap, which V8 lets grow to twice what it holds). A record is built from its row only when
 * it is asked for, and is then a SettledRecord.
 * Anything else (an `uploading` or `submitted` record, an odd value the columns cannot hold exactly)
 * is kept whole: those are the few inputs whose upload is under way.
 */
import type { JournalEvent, JournalRecord } from './journal.js';
import { KeyIndex } from './key-index.js';
import { Float64Column, Uint32Column, Uint8Column } from './chunked-columns.js';
import { Numbering, PackedPaths } from './packed-strings.js';

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

/** The events a row can hold, by their code; a row of any other event is kept whole. */
const SETTLED: readonly JournalEvent[] = ['done', 'failed', 'rejected'];
const WHOLE = 255;
/** A row whose input has no record any more (see delete). */
const NONE = 254;

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
function canonicalMs(at: string): number {
  if (at.length !== 24) return NaN;
  const ms = Date.parse(at);
  if (!Number.isFinite(ms)) return NaN;
  return PLAIN_ISO_TIME.test(at) || new Date(ms).toISOString() === at ? ms : NaN;
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

export class RecordTable implements RecordsByInput {
  /** Each row's input, packed outside V8's heap, and the rows by input (see key-index.ts). */
  readonly #inputs = new PackedPaths();
  readonly #rows = new KeyIndex((row, input) => this.#inputs.matches(row, input));
  /** The last input looked up and its row (-1: none): a journal line asks for its input three times. */
  #lastInput: string | undefined;
  #lastRow = -1;
  readonly #event = new Uint8Column();
  readonly #atMs = new Float64Column();
  readonly #size = new Float64Column();
  readonly #mtimeMs = new Float64Column();
  readonly #options = new Uint32Column();
  /** The journal file each row's record came from (its index in the order read). */
  readonly #source = new Uint32Column();
  /** The last journal file (its index + 1) that named each row's input: files count their inputs. */
  readonly #namedIn = new Uint32Column();
  /** Plain arrays, filled only as far as the last row that has one: most records have neither. */
  readonly #jobId: (string | undefined)[] = [];
  readonly #reason: (string | undefined)[] = [];
  /** Rows whose record is kept as an object. */
  readonly #whole = new Map<number, JournalRecord>();
  /** Rows whose time is not one the ms give back exactly: compared and given back as written. */
  readonly #atText = new Map<number, string>();
  readonly #fingerprints = new Numbering<string>();
  /** The last time converted: `loses` and `put` see the same record one after the other. */
  #lastAt = '';
  #lastAtMs = NaN;

  /** Rows whose input has no record any more. */
  #none = 0;

  get size(): number {
    return this.#inputs.length - this.#none;
  }

  has(input: string): boolean {
    const row = this.#rowOf(input);
    return row !== undefined && this.#event.get(row) !== NONE;
  }

  get(input: string): JournalRecord | undefined {
    const row = this.#rowOf(input);
    return row === undefined || this.#event.get(row) === NONE ? undefined : this.#record(row, input);
  }

  /**
   * Forgets an input's record (its only line was an upload withdrawn since). Rare: its row stays,
   * marked empty, and is used again if the input comes back.
   */
  delete(input: string): boolean {
    const row = this.#rowOf(input);
    if (row === undefined || this.#event.get(row) === NONE) return false;
    this.#event.set(row, NONE);
    this.#none++;
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
    const row = this.#rowOf(input);
    if (row === undefined) return undefined;
    const code = this.#event.get(row);
    if (code === NONE) return undefined;
    return code === WHOLE ? this.#whole.get(row)?.event : SETTLED[code];
  }

  /** The row of an input's record: a store that keeps more columns beside the table's indexes them by it. */
  protected rowOf(input: string): number | undefined {
    return this.#rowOf(input);
  }

  #rowOf(input: string): number | undefined {
    if (input !== this.#lastInput) {
      this.#lastInput = input;
      this.#lastRow = this.#rows.find(input);
    }
    return this.#lastRow < 0 ? undefined : this.#lastRow;
  }

  firstNamedIn(input: string, source: number): boolean {
    const row = this.#rowOf(input);
    if (row === undefined || this.#namedIn.get(row) === source + 1) return false;
    this.#namedIn.set(row, source + 1);
    return true;
  }

  /**
   * Whether a record read from journal file `source` loses to the one held: within one file the
   * later line wins (a clock may step back); between files, the later `at`.
   */
  loses(record: JournalRecord, source: number): boolean {
    const row = this.#rowOf(record.input);
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
    // Indexed under the row it would take: the index asks only rows already there for their inputs.
    let row = this.#rowOf(record.input) ?? this.#rows.add(this.#inputs.length, record.input);
    if (row < 0) {
      row = this.#inputs.push(record.input);
      this.#lastRow = row;
    }
    if (this.#event.get(row) === NONE) this.#none--;
    this.#source.set(row, source);
    this.#whole.delete(row);
    this.#atText.delete(row);
    const code = SETTLED.indexOf(record.event);
    const { jobId, reason } = record;
    const regular =
      code >= 0 &&
      (jobId === undefined || typeof jobId === 'string') &&
      (reason === undefined || typeof reason === 'string');
    if (!regular) {
      this.#event.set(row, WHOLE);
      this.#whole.set(row, record);
      this.#clearExtras(row);
      return;
    }
    this.#event.set(row, code);
    const ms = this.#msOf(record.at);
    this.#atMs.set(row, ms);
    if (Number.isNaN(ms)) this.#atText.set(row, record.at);
    this.#size.set(row, record.size);
    this.#mtimeMs.set(row, record.mtimeMs);
    this.#options.set(row, this.#fingerprints.numberOf(record.options));
    if (jobId !== undefined || row < this.#jobId.length) this.#jobId[row] = jobId;
    if (reason !== undefined || row < this.#reason.length) this.#reason[row] = reason;
  }

  *entries(): IterableIterator<[string, JournalRecord]> {
    for (let row = 0; row < this.#inputs.length; row++) {
      if (this.#event.get(row) === NONE) continue;
      const input = this.#inputs.at(row);
      yield [input, this.#record(row, input)];
    }
  }

  *keys(): IterableIterator<string> {
    for (let row = 0; row < this.#inputs.length; row++) {
      if (this.#event.get(row) === NONE) continue;
      const input = this.#inputs.at(row);
      // A caller asks for the input it was just given (status reads each one's state): its row is known.
      this.#lastInput = input;
      this.#lastRow = row;
      yield input;
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
    if (code === WHOLE) return this.#whole.get(row) as JournalRecord;
    return new SettledRecord(
      SETTLED[code] as JournalEvent,
      this.#atText.get(row) ?? new Date(this.#atMs.get(row)).toISOString(),
      input,
      this.#size.get(row),
      this.#mtimeMs.get(row),
      this.#fingerprints.valueOf(this.#options.get(row)),
      this.#jobId[row],
      this.#reason[row],
    );
  }

  #clearExtras(row: number): void {
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
