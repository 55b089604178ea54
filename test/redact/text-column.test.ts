/** Texts by row, packed: given back exactly, the replaced ones let go. */
import { describe, expect, it } from 'vitest';
import { TextColumn } from '../../src/redact/text-column.js';

describe('a column of texts by row', () => {
  it('gives back each row its text, none where none was set or it was cleared', () => {
    const column = new TextColumn();
    column.set(0, 'd0000/f000000.wav');
    column.set(70_000, 'é/通/x.wav');
    column.set(5, '');
    expect(column.get(0)).toBe('d0000/f000000.wav');
    expect(column.get(70_000)).toBe('é/通/x.wav');
    expect(column.get(5)).toBe('');
    expect(column.get(1)).toBeUndefined();
    column.set(0, undefined);
    column.clear(70_000);
    expect(column.get(0)).toBeUndefined();
    expect(column.get(70_000)).toBeUndefined();
  });

  it('packs nothing for a row given the text it holds (every line of an input names its output)', () => {
    const column = new TextColumn();
    for (let i = 0; i < 3; i++) column.set(7, 'calls/a.wav');
    expect(column.packed).toBe(1);
    column.set(7, 'calls/b.wav');
    expect(column.get(7)).toBe('calls/b.wav');
    expect(column.packed).toBe(2);
  });

  it('lets replaced texts go: a journal read through its history holds only the live ones', () => {
    const column = new TextColumn();
    // 200,000 texts, 10 rows: each replaced 20,000 times.
    for (let i = 0; i < 200_000; i++) column.set(i % 10, `job-${i}`);
    expect(column.packed).toBeLessThan(70_000);
    for (let row = 0; row < 10; row++) expect(column.get(row)).toBe(`job-${199_990 + row}`);
  });

  it('keeps every live text when many are live as the replaced ones go', () => {
    const column = new TextColumn();
    for (let row = 0; row < 40_000; row++) column.set(row, `live-${row}`);
    for (let i = 0; i < 100_000; i++) column.set(50_000, `churn-${i}`);
    expect(column.packed).toBeLessThan(100_000);
    for (let row = 0; row < 40_000; row++) expect(column.get(row)).toBe(`live-${row}`);
    expect(column.get(50_000)).toBe('churn-99999');
  });
});
