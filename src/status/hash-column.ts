/**
 * SHA-256s by row, 32 bytes each in one growing buffer, instead of a 64-character string each (about
 * 90 bytes with its slot): `status --manifest` holds two for every done input, 1,000,000 of them over
 * a large archive. A value that is not 64 lowercase hex digits (a journal edited by hand) is kept as
 * written, aside, so that the manifest gives back exactly what the journal says.
 */
const SHA256_HEX = /^[0-9a-f]{64}$/;
const BYTES = 32;
const FIRST_CAPACITY = 1024;

export class HashColumn {
  #capacity = FIRST_CAPACITY;
  #bytes = Buffer.alloc(FIRST_CAPACITY * BYTES);
  /** 1 where a row's hash is in #bytes. */
  #held = new Uint8Array(FIRST_CAPACITY);
  readonly #asWritten = new Map<number, string>();

  set(row: number, value: string | undefined): void {
    if (row >= this.#capacity) this.#grow(row + 1);
    this.#asWritten.delete(row);
    if (value !== undefined && SHA256_HEX.test(value)) {
      this.#bytes.write(value, row * BYTES, BYTES, 'hex');
      this.#held[row] = 1;
      return;
    }
    this.#held[row] = 0;
    if (value !== undefined) this.#asWritten.set(row, value);
  }

  get(row: number): string | undefined {
    if (row < this.#capacity && this.#held[row] === 1) {
      return this.#bytes.toString('hex', row * BYTES, (row + 1) * BYTES);
    }
    return this.#asWritten.get(row);
  }

  #grow(rows: number): void {
    let capacity = this.#capacity * 2;
    while (capacity < rows) capacity *= 2;
    const bytes = Buffer.alloc(capacity * BYTES);
    this.#bytes.copy(bytes);
    const held = new Uint8Array(capacity);
    held.set(this.#held);
    this.#bytes = bytes;
    this.#held = held;
    this.#capacity = capacity;
  }
}
