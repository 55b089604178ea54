/**
 * Deterministic pseudo-randomness. Math.random is never used: the same seed
 * and request must give byte-identical output, in any process.
 */

/** FNV-1a, 32-bit: a stable hash of a string that is identical on every platform. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * A mulberry32 generator keyed by `parts`. Each purpose passes its own salt
 * (e.g. 'age', 'gender') so that drawing for one field never shifts another.
 */
export function seededRandom(...parts: Array<string | number>): () => number {
  return mulberry32(hashString(parts.map(String).join('\u0000')));
}

/** mulberry32: a small, fast, seedable PRNG; the same seed gives the same sequence on every run. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
