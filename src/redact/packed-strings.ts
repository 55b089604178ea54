/**
 * Strings held as UTF-8 outside V8's heap, each given back by its number: a batch holds one name or
 * path per input for its whole run, and as V8 strings (with their headers, and the heap V8 lets grow
 * to twice what it holds) those cost several times their bytes. A string is decoded anew each time it
 * is asked for. Strings from file names round-trip exactly: they hold no lone surrogates (a journal
 * line whose input does is not read: see isRecord in journal-line.ts).
 */
import { Uint32Column } from './chunked-columns.js';
import { sortInTurns } from './sort-in-turns.js';

/** The bytes are held in chunks of 1 MiB, each allocated once and never copied (see chunked-columns.ts). */
const BYTES_SHIFT = 20;
const BYTES_CHUNK = 1 << BYTES_SHIFT;
/** Where a string ends is held in 32 bits: the bytes of all strings together stay below 4 GiB. */
const MAX_END = 2 ** 32 - 1;

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

/**
 * The strings' bytes lie in an address space of 1 MiB slots, each backed by a chunk allocated when
 * first written to. A string never spans two slots: one that does not fit in what is left of a slot
 * starts at the next, so where it starts follows from where it and the one before it end. A string
 * longer than a slot (none is, of the names and paths held here) gets a chunk of its own size, its
 * start kept aside, and the next string starts at the slot after it.
 */
export class PackedStrings {
  readonly #chunks: Buffer[] = [];
  /** Where each string ends, in the slots' address space. */
  readonly #ends = new Uint32Column();
  /** Where the strings longer than a slot start. */
  readonly #longStarts = new Map<number, number>();
  #length = 0;
  /** Where the next string may start. */
  #next = 0;

  get length(): number {
    return this.#length;
  }

  /** Adds a string; returns its number. */
  push(text: string): number {
    const at = this.#length;
    const size = Buffer.byteLength(text, 'utf8');
    if (size === 0) {
      // Ends where the string before it ends, wherever the next one will start.
      this.#ends.set(at, at === 0 ? 0 : this.#ends.get(at - 1));
      this.#length = at + 1;
      return at;
    }
    let start = this.#next;
    const offset = start & (BYTES_CHUNK - 1);
    if (size > BYTES_CHUNK - offset) {
      if (offset !== 0) start += BYTES_CHUNK - offset;
      if (size > BYTES_CHUNK) this.#longStarts.set(at, start);
    }
    const end = start + size;
    if (end > MAX_END) throw new RangeError('more than 4 GiB of names in one batch');
    const slot = start >>> BYTES_SHIFT;
    let chunk = this.#chunks[slot];
    if (chunk === undefined) {
      chunk = Buffer.allocUnsafeSlow(Math.max(size, BYTES_CHUNK));
      while (this.#chunks.length < slot) this.#chunks.push(EMPTY);
      this.#chunks[slot] = chunk;
    }
    chunk.write(text, start & (BYTES_CHUNK - 1), 'utf8');
    this.#ends.set(at, end);
    // After a long string, the next starts in a slot of its own.
    this.#next = size > BYTES_CHUNK ? Math.ceil(end / BYTES_CHUNK) * BYTES_CHUNK : end;
    this.#length = at + 1;
    return at;
  }

  /**
   * Forgets every string but keeps the chunks of bytes for the next ones: a store emptied and filled
   * again and again allocates nothing more (freed chunks go back to the system only when V8 collects).
   */
  clear(): void {
    let kept = 0;
    while (kept < this.#chunks.length && this.#chunks[kept]?.length === BYTES_CHUNK) kept++;
    this.#chunks.length = kept;
    this.#longStarts.clear();
    this.#length = 0;
    this.#next = 0;
  }

  at(index: number): string {
    const start = this.#start(index);
    const from = start & (BYTES_CHUNK - 1);
    return this.#chunkOf(start).toString('utf8', from, from + this.#ends.get(index) - start);
  }

  /**
   * Whether string `index` is `text` from `from` on. Compared in place, unit by byte while both are
   * ASCII (file names nearly always are): a look-up asks this of every input it finds, and decoding
   * a string for each one was most of the cost of reading a journal.
   */
  matches(index: number, text: string, from = 0): boolean {
    const start = this.#start(index);
    const size = this.#ends.get(index) - start;
    const units = text.length - from;
    // UTF-8 takes at least one byte for each UTF-16 unit.
    if (size < units) return false;
    const bytes = this.#chunkOf(start);
    const first = start & (BYTES_CHUNK - 1);
    for (let i = 0; i < units; i++) {
      const byte = bytes[first + i] as number;
      const unit = text.charCodeAt(from + i);
      if (byte >= 0x80 || unit >= 0x80) return this.at(index) === text.slice(from);
      if (byte !== unit) return false;
    }
    return size === units;
  }

  /**
   * The strings' numbers in the order JavaScript's default sort gives the strings (by UTF-16 unit),
   * compared in place: a listing of 1,000,000 paths is put in order without 1,000,000 strings on
   * V8's heap, as fast as sorting the strings. Bytes are compared while both are ASCII; at the first
   * other byte that differs the two strings are decoded and compared as strings (UTF-8's byte order is
   * the code points', which sorts a few characters differently from the units').
   */
  sortedOrder(): Uint32Array {
    return this.#numbers().sort((a, b) => this.#compare(a, b));
  }

  /**
   * sortedOrder, giving the event loop its turns (see sort-in-turns.ts): a first interrupt (`stop`)
   * ends it, rejecting with its reason.
   */
  sortedOrderInTurns(stop?: AbortSignal): Promise<Uint32Array> {
    return sortInTurns(this.#numbers(), (a, b) => this.#compare(a, b), stop);
  }

  #numbers(): Uint32Array {
    const order = new Uint32Array(this.#length);
    for (let i = 0; i < order.length; i++) order[i] = i;
    return order;
  }

  /**
   * Every string once, in the order of sortedOrder, each chunk of bytes let go as soon as the last
   * string in it is given: a folder's listing comes nearly in order, so over 1,000,000 paths most of
   * the listing is freed while the found files that replace it are packed. The store is empty after.
   * `onFreed` is told the bytes written in each chunk let go (V8 gives them back only when it
   * collects). `order`: sortedOrder's, when it was had already (sortedOrderInTurns).
   */
  *drainSorted(onFreed?: (bytes: number) => void, order = this.sortedOrder()): Generator<string> {
    const left = new Uint32Array(this.#chunks.length);
    /** The bytes written in each chunk: a chunk's pages that were never written take no memory. */
    const written = new Uint32Array(this.#chunks.length);
    for (let index = 0; index < this.#length; index++) {
      const end = this.#ends.get(index);
      if (end > (index === 0 ? 0 : this.#ends.get(index - 1))) {
        const slot = this.#start(index) >>> BYTES_SHIFT;
        left[slot] = (left[slot] as number) + 1;
        written[slot] = end - slot * BYTES_CHUNK;
      }
    }
    for (const index of order) {
      const start = this.#start(index);
      const text = this.at(index);
      const slot = start >>> BYTES_SHIFT;
      if (text !== '' && (left[slot] = (left[slot] as number) - 1) === 0) {
        onFreed?.(written[slot] as number);
        this.#chunks[slot] = EMPTY;
      }
      yield text;
    }
    this.clear();
  }

  #compare(a: number, b: number): number {
    const startA = this.#start(a);
    const startB = this.#start(b);
    const bytesA = this.#chunkOf(startA);
    const bytesB = this.#chunkOf(startB);
    const firstA = startA & (BYTES_CHUNK - 1);
    const firstB = startB & (BYTES_CHUNK - 1);
    const sizeA = this.#ends.get(a) - startA;
    const sizeB = this.#ends.get(b) - startB;
    const common = Math.min(sizeA, sizeB);
    for (let i = 0; i < common; i++) {
      const x = bytesA[firstA + i] as number;
      const y = bytesB[firstB + i] as number;
      if (x === y) continue;
      if (x < 0x80 && y < 0x80) return x - y;
      const left = this.at(a);
      const right = this.at(b);
      return left < right ? -1 : left > right ? 1 : 0;
    }
    return sizeA - sizeB;
  }

  #start(index: number): number {
    // Most tables hold no long string: a look-up in the map would cost every call.
    if (this.#longStarts.size > 0) {
      const long = this.#longStarts.get(index);
      if (long !== undefined) return long;
    }
    const end = this.#ends.get(index);
    const before = index === 0 ? 0 : this.#ends.get(index - 1);
    // Where the string before it ends, if that is in the slot this one ends in; else that slot's start.
    if (end === before || before >>> BYTES_SHIFT === (end - 1) >>> BYTES_SHIFT) return before;
    return ((end - 1) >>> BYTES_SHIFT) * BYTES_CHUNK;
  }

  #chunkOf(start: number): Buffer {
    return this.#chunks[start >>> BYTES_SHIFT] ?? EMPTY;
  }
}

/** The chunk of the slots no string starts in, and of empty strings. */
const EMPTY = Buffer.alloc(0);

/**
 * Paths packed as PackedStrings are, each folder held once: a journal names 1,000,000 inputs in a few
 * thousand folders, and a folder of an archive is often longer than the names in it. A path is split
 * after its last separator; the two parts are joined again when it is asked for.
 */
export class PackedPaths {
  readonly #folders = new Numbering<string>();
  readonly #folderOf = new Uint32Column();
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
    this.#folderOf.set(at, number);
    return at;
  }

  at(index: number): string {
    return this.#folders.valueOf(this.#folderOf.get(index)) + this.#names.at(index);
  }

  /** Whether path `index` is `path`, without joining its parts. */
  matches(index: number, path: string): boolean {
    const folder = this.#folders.valueOf(this.#folderOf.get(index));
    return path.startsWith(folder) && this.#names.matches(index, path, folder.length);
  }
}
