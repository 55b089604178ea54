import { describe, expect, it } from 'vitest';
import { hashKey, KeyIndex } from '../../src/redact/key-index.js';

/** Two keys with the same hash, found by trying names until two meet (about 80,000 tries). */
function collidingKeys(): [string, string] {
  const seen = new Map<number, string>();
  for (let i = 0; ; i++) {
    const key = `calls/f${i}.wav`;
    const hash = hashKey(key);
    const earlier = seen.get(hash);
    if (earlier !== undefined) return [earlier, key];
    seen.set(hash, key);
  }
}

describe('KeyIndex', () => {
  it('finds each item by its key, past many growths, and tells a key already there', () => {
    const keys = Array.from({ length: 5000 }, (_, i) => `/in/d${i % 7}/f${i}.wav`);
    const index = new KeyIndex((row, key) => keys[row] === key);
    keys.forEach((key, row) => expect(index.add(row, key)).toBe(-1));
    expect(index.size).toBe(5000);
    keys.forEach((key, row) => expect(index.find(key)).toBe(row));
    expect(index.find('/in/d0/missing.wav')).toBe(-1);
    expect(index.add(5000, '/in/d3/f10.wav')).toBe(10);
    expect(index.size).toBe(5000);
  });

  it('tells apart two keys whose hashes meet, by asking for the keys', () => {
    const [first, second] = collidingKeys();
    expect(first).not.toBe(second);
    expect(hashKey(first)).toBe(hashKey(second));
    const keys = [first, second];
    const asked: number[] = [];
    const index = new KeyIndex((row, key) => {
      asked.push(row);
      return keys[row] === key;
    });
    expect(index.add(0, first)).toBe(-1);
    expect(index.add(1, second)).toBe(-1);
    expect(index.find(first)).toBe(0);
    expect(index.find(second)).toBe(1);
    expect(asked.length).toBeGreaterThan(0);
  });

  it('asks only for the keys of items already added (an item may be added before it exists)', () => {
    const keys: string[] = [];
    const index = new KeyIndex((row, key) => {
      if (row >= keys.length) throw new Error(`row ${row} was asked for before it existed`);
      return keys[row] === key;
    });
    for (let row = 0; row < 3000; row++) {
      const key = `k${row % 2000}`;
      if (index.add(keys.length, key) < 0) keys.push(key);
    }
    expect(keys).toHaveLength(2000);
  });

  it('made room for many items at once, takes them without growing again and finds each', () => {
    const keys = Array.from({ length: 6000 }, (_, i) => `/in/d${i % 11}/f${i}.wav`);
    const [first, second] = collidingKeys();
    keys.push(first, second);
    const index = new KeyIndex((row, key) => keys[row] === key);
    for (let row = 0; row < 100; row++) index.add(row, keys[row] as string);
    index.reserve(keys.length - 100);
    const capacity = index.capacity;
    expect(capacity).toBeGreaterThanOrEqual(keys.length * 2);
    expect(capacity).toBeLessThan(keys.length * 4);
    for (let row = 100; row < keys.length; row++) expect(index.add(row, keys[row] as string)).toBe(-1);
    expect(index.capacity).toBe(capacity);
    keys.forEach((key, row) => expect(index.find(key)).toBe(row));
    expect(index.add(keys.length, keys[42] as string)).toBe(42);
    index.reserve(0);
    expect(index.capacity).toBe(capacity);
  });
});
