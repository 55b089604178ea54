/**
 * Columns of numbers, one per row, that grow by whole chunks of 65,536 rows rather than by doubling:
 * the packed tables of a batch (found files, journal records) hold one row per input for the whole
 * run. Doubling a column copies it, so the old and the new are both held at that moment; and with
 * glibc, freeing a large block raises malloc's threshold for taking memory straight from the system,
 * after which blocks below it come from malloc's heap, whose freed parts the process keeps. Over
 * 1,000,000 inputs a re-run held about 40 MB more RSS that way than with the threshold pinned
 * (MALLOC_MMAP_THRESHOLD_). A chunk lives as long as its column, and no chunk is ever copied.
 */

const SHIFT = 16;
/** Rows in a chunk: 64 KiB of a byte column, 512 KiB of a float column. */
export const CHUNK_ROWS = 1 << SHIFT;
const LAST = CHUNK_ROWS - 1;

type Chunk = Uint8Array | Uint16Array | Uint32Array | Float64Array;

abstract class ChunkedColumn<T extends Chunk> {
  /** A chunk is made when a row of it is first set: a column set on few rows holds few chunks. */
  readonly #chunks: (T | undefined)[] = [];

  /** The value of a row; 0 for a row never set, as in a new typed array. */
  get(row: number): number {
    return this.#chunks[row >>> SHIFT]?.[row & LAST] ?? 0;
  }

  set(row: number, value: number): void {
    const index = row >>> SHIFT;
    while (this.#chunks.length <= index) this.#chunks.push(undefined);
    let chunk = this.#chunks[index];
    if (chunk === undefined) {
      chunk = this.newChunk();
      this.#chunks[index] = chunk;
    }
    chunk[row & LAST] = value;
  }

  protected abstract newChunk(): T;
}

export class Uint8Column extends ChunkedColumn<Uint8Array> {
  protected newChunk(): Uint8Array {
    return new Uint8Array(CHUNK_ROWS);
  }
}

export class Uint16Column extends ChunkedColumn<Uint16Array> {
  protected newChunk(): Uint16Array {
    return new Uint16Array(CHUNK_ROWS);
  }
}

export class Uint32Column extends ChunkedColumn<Uint32Array> {
  protected newChunk(): Uint32Array {
    return new Uint32Array(CHUNK_ROWS);
  }
}

export class Float64Column extends ChunkedColumn<Float64Array> {
  protected newChunk(): Float64Array {
    return new Float64Array(CHUNK_ROWS);
  }
}

/**
 * Unsigned integers in 16 bits each until one needs more, then in 32 (its rows copied once): numbers
 * that are small in every real folder (journal files, option sets) but that no rule bounds.
 */
export class NarrowUintColumn {
  #column: Uint16Column | Uint32Column = new Uint16Column();
  #wide = false;
  /** One past the last row set: how far a widening copies. */
  #rows = 0;

  get(row: number): number {
    return this.#column.get(row);
  }

  set(row: number, value: number): void {
    if (!this.#wide && value > 0xffff) this.#widen();
    this.#column.set(row, value);
    if (row >= this.#rows) this.#rows = row + 1;
  }

  #widen(): void {
    const wide = new Uint32Column();
    for (let row = 0; row < this.#rows; row++) {
      const value = this.#column.get(row);
      if (value !== 0) wide.set(row, value);
    }
    this.#column = wide;
    this.#wide = true;
  }
}
