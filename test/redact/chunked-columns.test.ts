import { describe, expect, it } from 'vitest';
import {
  CHUNK_ROWS,
  Float64Column,
  NarrowUintColumn,
  Uint16Column,
  Uint32Column,
  Uint8Column,
} from '../../src/redact/chunked-columns.js';

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

  it('hold 16 bits a row until a value needs more, then every row set so far and after in 32', () => {
    const narrow = new Uint16Column();
    narrow.set(3, 70_000);
    expect(narrow.get(3)).toBe(70_000 - 65_536);
    const column = new NarrowUintColumn();
    const rows = [0, 9, CHUNK_ROWS + 1, 4 * CHUNK_ROWS];
    rows.forEach((row, i) => column.set(row, 65_535 - i));
    column.set(2 * CHUNK_ROWS, 70_000);
    column.set(7, 4_000_000_000);
    rows.forEach((row, i) => expect(column.get(row)).toBe(65_535 - i));
    expect([column.get(2 * CHUNK_ROWS), column.get(7), column.get(8)]).toEqual([70_000, 4_000_000_000, 0]);
  });
});
