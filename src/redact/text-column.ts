/**
 * A text by row, packed as UTF-8 outside V8's heap (see packed-strings.ts) instead of a string on the
 * heap each: held for every input of an archive, a string with its header and slot, in a heap V8
 * lets grow to twice what it holds, cost several times its bytes. Texts are only ever appended: one
 * replaced stays until many are, and more than are live, when the live ones are packed again.
 */
import { Uint32Column } from './chunked-columns.js';
import { PackedStrings } from './packed-strings.js';

/** Replaced texts let go at once, at the least: each repacking looks at every row. */
const REPACK_AFTER = 65_536;
/** Live texts up to this many are set aside and the store refilled, reusing its memory. */
const REPACK_IN_PLACE = 16_384;

export class TextColumn {
  #texts = new PackedStrings();
  /** Each row's text's number + 1; 0 for none. */
  readonly #textOf = new Uint32Column();
  #live = 0;
  /** One past the last row given a text: how far a repacking looks. */
  #rows = 0;

  /** Holds `text` on the row (none for undefined). A row given the text it holds packs nothing. */
  set(row: number, text: string | undefined): void {
    const held = this.#textOf.get(row);
    if (text !== undefined && held !== 0 && this.#texts.matches(held - 1, text)) return;
    this.clear(row);
    if (text === undefined) return;
    const dead = this.#texts.length - this.#live;
    if (dead >= REPACK_AFTER && dead > this.#live) this.#repack();
    this.#textOf.set(row, this.#texts.push(text) + 1);
    this.#live++;
    if (row >= this.#rows) this.#rows = row + 1;
  }

  get(row: number): string | undefined {
    const number = this.#textOf.get(row);
    return number === 0 ? undefined : this.#texts.at(number - 1);
  }

  clear(row: number): void {
    if (this.#textOf.get(row) === 0) return;
    this.#textOf.set(row, 0);
    this.#live--;
  }

  /** Texts held, replaced ones included (for tests). */
  get packed(): number {
    return this.#texts.length;
  }

  /**
   * In a journal read through its history few texts are live at once when most are replaced (the
   * jobs in flight when it was written): they are set aside and the store refilled. Many live ones
   * are copied to a new store.
   */
  #repack(): void {
    const old = this.#texts;
    const inPlace = this.#live <= REPACK_IN_PLACE;
    const live: [row: number, text: string][] = [];
    const texts = inPlace ? old : new PackedStrings();
    for (let row = 0; row < this.#rows; row++) {
      const number = this.#textOf.get(row);
      if (number === 0) continue;
      if (inPlace) live.push([row, old.at(number - 1)]);
      else this.#textOf.set(row, texts.push(old.at(number - 1)) + 1);
    }
    if (inPlace) {
      old.clear();
      for (const [row, text] of live) this.#textOf.set(row, old.push(text) + 1);
    }
    this.#texts = texts;
  }
}
