/**
 * Items of a packed table (see found-files.ts) indexed by a string key, without keeping the key: a
 * `Map<string, number>` keeps one string and one entry per item, about 100 bytes an input, which over
 * 1,000,000 inputs is most of a run's memory. Here each item costs two 32-bit slots (a load of at most
 * one half: 16 bytes an item), and the table is asked whether an item has a key only when their
 * hashes meet, so the answer is exact. Hand-written because no maintained package indexes a packed table by a key it can
 * give back; the hash is FNV-1a over the UTF-16 units with murmur3's final mix.
 */

const FIRST_CAPACITY = 1024;

export function hashKey(key: string, seed = 0x811c9dc5): number {
  let hash = seed;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}

export class KeyIndex {
  /** The item's index + 1 in each slot; 0 is empty. */
  #slots = new Uint32Array(FIRST_CAPACITY);
  #hashes = new Uint32Array(FIRST_CAPACITY);
  #count = 0;

  /** `hasKey(i, key)` tells whether item `i`'s key is `key`, the same each time it is asked. */
  constructor(private readonly hasKey: (index: number, key: string) => boolean) {}

  get size(): number {
    return this.#count;
  }

  /** The slots the table holds: at least twice its items. */
  get capacity(): number {
    return this.#slots.length;
  }

  /**
   * Makes room for `more` items beyond those held, at once: a table that doubles while it fills holds
   * the old slots beside the new ones at each step, and the last step over 1,000,000 items is 8 MB
   * more at the peak of a run's memory.
   */
  reserve(more: number): void {
    let capacity = this.#slots.length;
    while ((this.#count + more) * 2 > capacity) capacity *= 2;
    if (capacity !== this.#slots.length) this.#grow(capacity);
  }

  /** The index of the item with this key, or -1. */
  find(key: string): number {
    const hash = hashKey(key);
    const mask = this.#slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = this.#slots[slot] as number;
      if (held === 0) return -1;
      if (this.#hashes[slot] === hash && this.hasKey(held - 1, key)) return held - 1;
    }
  }

  /**
   * Adds item `index` under its key unless an item with the same key is there already: returns that
   * item's index, or -1 when `index` was added.
   */
  add(index: number, key: string): number {
    if ((this.#count + 1) * 2 > this.#slots.length) this.#grow(this.#slots.length * 2);
    const hash = hashKey(key);
    const mask = this.#slots.length - 1;
    let slot = hash & mask;
    for (; ; slot = (slot + 1) & mask) {
      const held = this.#slots[slot] as number;
      if (held === 0) break;
      if (this.#hashes[slot] === hash && this.hasKey(held - 1, key)) return held - 1;
    }
    this.#slots[slot] = index + 1;
    this.#hashes[slot] = hash;
    this.#count++;
    return -1;
  }

  #grow(capacity: number): void {
    const slots = this.#slots;
    const hashes = this.#hashes;
    this.#slots = new Uint32Array(capacity);
    this.#hashes = new Uint32Array(capacity);
    const mask = this.#slots.length - 1;
    for (let old = 0; old < slots.length; old++) {
      const held = slots[old] as number;
      if (held === 0) continue;
      const hash = hashes[old] as number;
      let slot = hash & mask;
      while (this.#slots[slot] !== 0) slot = (slot + 1) & mask;
      this.#slots[slot] = held;
      this.#hashes[slot] = hash;
    }
  }
}
