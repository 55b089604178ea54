import { describe, expect, it } from 'vitest';
import { CHUNK_ROWS, Float64Column, Uint32Column, Uint8Column } from '../../src/redact/chunked-columns.js';

describe('chunked columns', () => {
  it('keep each row across chunks, and read 0 for a row never set, as a new typed array does', () => {
    const bytes = new Uint8Column();
    const counts = new Uint32Column();
    const times = new Float64Column();
    const rows = [0, 1, CHUNK_ROWS - 1, CHUNK_ROWS, 3 * CHUNK_ROWS + 7];
    for (const row of rows) {
      bytes.set(row, row % 251);
      counts.set(row, 4_000_000_000 - row);
      times.set(row, 1_763_600_000_123.5 + row);
    }
    for (const row of rows) {
      expect(bytes.get(row)).toBe(row % 251);
      expect(counts.get(row)).toBe(4_000_000_000 - row);
      expect(times.get(row)).toBe(1_763_600_000_123.5 + row);
    }
    expect(bytes.get(2)).toBe(0);
    expect(counts.get(2 * CHUNK_ROWS)).toBe(0);
    expect(times.get(10 * CHUNK_ROWS)).toBe(0);
  });

  it('store as their typed arrays do: bytes wrap, floats keep -1 and fractions', () => {
    const bytes = new Uint8Column();
    bytes.set(5, 256 + 3);
    expect(bytes.get(5)).toBe(3);
    const times = new Float64Column();
    times.set(5, -1);
    expect(times.get(5)).toBe(-1);
  });
});
