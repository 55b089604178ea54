/**
 * Where the `done` line of a row is, for the few done records a run may have to re-journal: a file
 * whose time alone changed since its done line (a restore, a copy without its times, a touch) is
 * skipped if its bytes hash to the line's `inputSha256`, and that line is written again with the new
 * time (decide.ts, check.ts). The table holds neither SHA-256 of a done record: for those rows only,
 * the line's place (one number; its file kept open, journal-lines-at.ts), and the line is read again
 * when the record is asked for. A done record of the time the run saw holds nothing here, so a re-run
 * over 100,000 done files costs what it did.
 */
import { Float64Column } from './chunked-columns.js';
import type { JournalRecord } from './journal.js';
import { type OpenJournals, placeOf } from './journal-lines-at.js';

export class DoneLines {
  /** Where each row's line is (+ 1; 0 for none). */
  readonly #place = new Float64Column();
  #any = false;

  constructor(private readonly lines: OpenJournals | undefined) {}

  /**
   * Holds where a done record's line is, when the file it is read from can be kept open and the line
   * carries the hash of its input (else there is nothing to compare: the file is sent as before).
   */
  hold(row: number, record: JournalRecord): void {
    this.clear(row);
    const place = this.lines && typeof record.inputSha256 === 'string' ? placeOf(record) : undefined;
    if (place === undefined || !this.lines?.keepOpen(place)) return;
    this.#place.set(row, place + 1);
    this.#any = true;
  }

  clear(row: number): void {
    if (this.#any && this.#place.get(row) !== 0) this.#place.set(row, 0);
  }

  /** The row's done line read again, every field, or undefined when none is held. */
  recordOf(row: number, input: string, at: string): JournalRecord | undefined {
    if (!this.#any || !this.lines) return undefined;
    const place = this.#place.get(row);
    return place === 0 ? undefined : this.lines.recordAt(place - 1, input, at);
  }
}
