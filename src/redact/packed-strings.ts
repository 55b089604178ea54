/**
 * Strings held as UTF-8 in one growing buffer outside V8's heap, each given back by its number: a
 * batch holds one name or path per input for its whole run, and as V8 strings (with their headers,
 * and the heap V8 lets grow to twice what it holds) those cost several times their bytes. A string is
 * decoded anew each time it is asked for. Strings from file names and JSON round-trip exactly: they
 * hold no lone surrogates.
 */

const FIRST_COUNT = 1024;
const FIRST_BYTES = 16 * 1024;

/** A typed column copied into one of `capacity` rows: the packed tables grow by doubling. */
export function grown<T extends Uint8Array | Uint32Array | Float64Array>(column: T, capacity: number): T {
  const next = new (column.constructor as new (length: number) => T)(capacity);
  next.set(column);
  return next;
}

/** Each distinct value of a few (folders, option fingerprints) held once, known by its number. */
export class Numbering<T> {
  readonly #values: T[] = [];
  readonly #numbers = new Map<T, number>();

  /** Every value, in the order first numbered. */
  get values(): readonly T[] {
    return this.#values;
  }

  numberOf(value: T): number {
    let number = this.#numbers.get(value);
    if (number === undefined) {
      number = this.#values.push(value) - 1;
      this.#numbers.set(value, number);
    }
    return number;
  }

  valueOf(number: number): T {
    return this.#values[number] as T;
  }
}

export class PackedStrings {
  #bytes = Buffer.allocUnsafeSlow(FIRST_BYTES);
  /** Where each string ends in `#bytes`; it starts where the one before it ends. */
  #ends = new Uint32Array(FIRST_COUNT);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  /** Adds a string; returns its number. */
  push(text: string): number {
    const at = this.#length;
    if (at === this.#ends.length) this.#ends = grown(this.#ends, at * 2);
    const start = this.#start(at);
    const size = Buffer.byteLength(text, 'utf8');
    if (start + size > this.#bytes.length) {
      const bytes = Buffer.allocUnsafeSlow(Math.max(this.#bytes.length * 2, start + size));
      this.#bytes.copy(bytes, 0, 0, start);
      this.#bytes = bytes;
    }
    this.#bytes.write(text, start, 'utf8');
    this.#ends[at] = start + size;
    this.#length = at + 1;
    return at;
  }

  at(index: number): string {
    return this.#bytes.toString('utf8', this.#start(index), this.#ends[index]);
  }

  /**
   * Whether string `index` is `text` from `from` on. Compared in place, unit by byte while both are
   * ASCII (file names nearly always are): a look-up asks this of every input it finds, and decoding
   * a string for each one was most of the cost of reading a journal.
   */
  matches(index: number, text: string, from = 0): boolean {
    const start = this.#start(index);
    const size = (this.#ends[index] as number) - start;
    const units = text.length - from;
    // UTF-8 takes at least one byte for each UTF-16 unit.
    if (size < units) return false;
    for (let i = 0; i < units; i++) {
      const byte = this.#bytes[start + i] as number;
      const unit = text.charCodeAt(from + i);
      if (byte >= 0x80 || unit >= 0x80) return this.at(index) === text.slice(from);
      if (byte !== unit) return false;
    }
    return size === units;
  }

  #start(index: number): number {
    return index === 0 ? 0 : (this.#ends[index - 1] as number);
  }
}

/**
 * Paths packed as PackedStrings are, each folder held once: a journal names 1,000,000 inputs in a few
 * thousand folders, and a folder of an archive is often longer than the names in it. A path is split
 * after its last separator; the two parts are joined again when it is asked for.
 */
export class PackedPaths {
  readonly #folders = new Numbering<string>();
  #folderOf = new Uint32Array(FIRST_COUNT);
  readonly #names = new PackedStrings();
  /** The last folder's number: paths come folder by folder, and a look-up makes a string. */
  #lastFolder = -1;

  get length(): number {
    return this.#names.length;
  }

  /** Adds a path; returns its number. */
  push(path: string): number {
    const cut = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1;
    const last = this.#lastFolder < 0 ? undefined : this.#folders.valueOf(this.#lastFolder);
    const number =
      last !== undefined && last.length === cut && path.startsWith(last)
        ? this.#lastFolder
        : this.#folders.numberOf(path.slice(0, cut));
    this.#lastFolder = number;
    const at = this.#names.push(path.slice(cut));
    if (at === this.#folderOf.length) this.#folderOf = grown(this.#folderOf, at * 2);
    this.#folderOf[at] = number;
    return at;
  }

  at(index: number): string {
    return this.#folders.valueOf(this.#folderOf[index] as number) + this.#names.at(index);
  }

  /** Whether path `index` is `path`, without joining its parts. */
  matches(index: number, path: string): boolean {
    const folder = this.#folders.valueOf(this.#folderOf[index] as number);
    return path.startsWith(folder) && this.#names.matches(index, path, folder.length);
  }
}
