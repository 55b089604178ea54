/**
 * Which row of a RecordTable holds which input. A map kept each input as a string on the heap (about
 * 100 bytes an input, the map growing to twice what it holds); here an input the table is built on
 * (KnownInputs, a run's plan) has the plan's row, held nowhere twice, and any other input is packed
 * as UTF-8 outside V8's heap, with two slots of an index from it to its row (see key-index.ts). The
 * rows of other inputs come after the known ones.
 */
import { KeyIndex } from './key-index.js';
import { PackedPaths } from './packed-strings.js';
import type { KnownInputs } from './record-store.js';

export class InputRows {
  /** Rows 0 to knownRows - 1 are the known inputs'; the table's own inputs come after them. */
  readonly known: KnownInputs | undefined;
  readonly knownRows: number;
  readonly #inputs = new PackedPaths();
  readonly #rows = new KeyIndex((own, input) => this.#inputs.matches(own, input));
  /** The last input looked up and its row (-1: none): a journal line asks for its input three times. */
  #lastInput: string | undefined;
  #lastRow = -1;

  constructor(known?: KnownInputs) {
    this.known = known;
    this.knownRows = known?.length ?? 0;
  }

  /** Rows given so far, known ones included. */
  get length(): number {
    return this.knownRows + this.#inputs.length;
  }

  /** The row of `input`, or undefined when it has none yet. */
  rowOf(input: string): number | undefined {
    if (input !== this.#lastInput) {
      this.#lastInput = input;
      const known = this.known?.rowOf(input) ?? -1;
      const own = known < 0 ? this.#rows.find(input) : -1;
      this.#lastRow = known >= 0 ? known : own >= 0 ? this.knownRows + own : -1;
    }
    return this.#lastRow < 0 ? undefined : this.#lastRow;
  }

  /** A new row for an input that has none (rowOf said so). */
  add(input: string): number {
    // Indexed under the row it will take: the index asks only rows already there for their inputs.
    this.#rows.add(this.#inputs.length, input);
    const row = this.knownRows + this.#inputs.push(input);
    this.#lastInput = input;
    this.#lastRow = row;
    return row;
  }

  /** The input of a row; it becomes the last looked up (a caller asks for the input it was just given). */
  inputAt(row: number): string {
    const known = this.known;
    const input =
      known !== undefined && row < this.knownRows
        ? known.inputAt(row)
        : this.#inputs.at(row - this.knownRows);
    this.#lastInput = input;
    this.#lastRow = row;
    return input;
  }
}
