/** SHA-256s held as bytes by row, and what is not one kept as written. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HashColumn } from '../../src/status/hash-column.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('a column of SHA-256s', () => {
  it('gives back each row’s hash, past its first capacity, and nothing for a row never set', () => {
    const column = new HashColumn();
    for (let row = 0; row < 5000; row += 3) column.set(row, sha(`input ${row}`));
    for (let row = 0; row < 5000; row++) {
      expect(column.get(row)).toBe(row % 3 === 0 ? sha(`input ${row}`) : undefined);
    }
    expect(column.get(1_000_000)).toBeUndefined();
  });

  it('keeps a value that is not 64 lowercase hex digits exactly as written', () => {
    const column = new HashColumn();
    const odd = ['ABC', sha('x').toUpperCase(), `${sha('x')}0`, 'not a hash', ''];
    odd.forEach((value, row) => column.set(row, value));
    odd.forEach((value, row) => expect(column.get(row)).toBe(value));
  });

  it('replaces a row’s hash, or clears it, when the row is set again', () => {
    const column = new HashColumn();
    column.set(7, sha('first'));
    column.set(7, 'edited by hand');
    expect(column.get(7)).toBe('edited by hand');
    column.set(7, sha('second'));
    expect(column.get(7)).toBe(sha('second'));
    column.set(7, undefined);
    expect(column.get(7)).toBeUndefined();
  });
});
