/**
 * The one home of the rule "which record is the file's standing output". An output is published only
 * whole and verified, and nothing but a later verified result replaces it: a redo that fails, an
 * upload cut short, an input rewritten into a file that is no audio and rejected, all leave the
 * output of the last `done` record where it was. So an input's standing output is that of its last
 * record when it is done, else that of the latest done record before it (its earlier output) while
 * that file is still there, which status reports beside the later attempt and the manifest keeps as
 * its row. An earlier output deleted since stands no more: the note would say what is not so.
 */
import { existsSync } from 'node:fs';
import type { JournalRecord } from '../redact/journal.js';
import type { StatusRecord } from './records.js';
import { outputPath } from './summary.js';

/** Whether a journaled output (relative to `outDir`) is there now. */
export function outputThere(outDir: string, output: string | undefined): boolean {
  return output !== undefined && output !== '' && existsSync(outputPath(outDir, output));
}

/** The record whose output stands for an input: its last when done, else its earlier output's. */
export function standingRecord(record: StatusRecord): StatusRecord | undefined {
  return record.event === 'done' ? record : record.earlier;
}

/**
 * A table that holds the done records of inputs whose last record is not done (in status's compact
 * columns, with the hashes): empty, and never made, while every input's last record is its done one.
 */
export interface EarlierTable {
  put(record: JournalRecord, source: number): void;
  get(input: string): JournalRecord | undefined;
  delete(input: string): boolean;
  has(input: string): boolean;
}

/** The earlier outputs of the inputs of one journal read, by input. */
export class EarlierOutputs {
  #table: EarlierTable | undefined;

  constructor(private readonly makeTable: () => EarlierTable) {}

  /** A later record replaces an input's done one (`done`, the record it replaces). */
  replaced(done: JournalRecord): void {
    this.#table ??= this.makeTable();
    this.#table.put(done, 0);
  }

  /**
   * A done record that lost to the input's later one (a shard's journal read after the one with the
   * later line): it stands when it is the latest done one met so far.
   */
  outranked(done: JournalRecord): void {
    const held = this.#table?.get(done.input);
    if (held === undefined || held.at < done.at) this.replaced(done);
  }

  /** The input's last record is a done one again: it is its own standing output. */
  forget(input: string): void {
    this.#table?.delete(input);
  }

  has(input: string): boolean {
    return this.#table?.has(input) ?? false;
  }

  get(input: string): JournalRecord | undefined {
    return this.#table?.get(input);
  }
}
