/** G.711 expansion tables against the ITU-T code points and an independent reference compressor. */
import { describe, expect, it } from 'vitest';
import { ALAW_TABLE, ULAW_TABLE } from '../../src/audio/g711.js';

/** Back to the 16-bit scale; `+ 0` folds µ-law's negative zero into zero. */
const toInt16 = (v: number): number => Math.round(v * 32768) + 0;

/** Segment search of the reference compressor: index of the first end point >= value. */
function segment(value: number, ends: readonly number[]): number {
  const i = ends.findIndex((end) => value <= end);
  return i < 0 ? ends.length : i;
}

/** The classic reference µ-law compressor (16-bit linear in, 8-bit code out). */
function linearToUlaw(pcm: number): number {
  let v = pcm >> 2;
  let mask = 0xff;
  if (v < 0) {
    v = -v;
    mask = 0x7f;
  }
  v = Math.min(v, 8159) + (0x84 >> 2);
  const seg = segment(v, [0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff, 0x1fff]);
  if (seg >= 8) return 0x7f ^ mask;
  return ((seg << 4) | ((v >> (seg + 1)) & 0x0f)) ^ mask;
}

/** The classic reference A-law compressor (16-bit linear in, 8-bit code out). */
function linearToAlaw(pcm: number): number {
  let v = pcm >> 3;
  let mask = 0xd5;
  if (v < 0) {
    mask = 0x55;
    v = -v - 1;
  }
  const seg = segment(v, [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff]);
  if (seg >= 8) return 0x7f ^ mask;
  const quant = seg < 2 ? (v >> 1) & 0x0f : (v >> seg) & 0x0f;
  return ((seg << 4) | quant) ^ mask;
}

describe('µ-law table', () => {
  it('expands the ITU-T reference codes to their linear values', () => {
    // 0xFF and 0x7F are the two zeros; 0x80 / 0x00 the largest magnitudes (±8031 on the 14-bit scale).
    const expected: Array<[number, number]> = [
      [0xff, 0],
      [0x7f, 0],
      [0xfe, 8],
      [0x7e, -8],
      [0xf0, 120],
      [0xef, 132],
      [0xdf, 396],
      [0x80, 32124],
      [0x00, -32124],
    ];
    for (const [code, linear] of expected)
      expect(toInt16(ULAW_TABLE[code]!), `code 0x${code.toString(16)}`).toBe(linear);
  });

  it('is the inverse of the reference compressor for every code', () => {
    for (let code = 0; code < 256; code++) {
      // Negative zero (0x7F) compresses back to positive zero.
      const back = code === 0x7f ? 0xff : code;
      expect(linearToUlaw(toInt16(ULAW_TABLE[code]!)), `code 0x${code.toString(16)}`).toBe(back);
    }
  });

  it('is odd-symmetric in the sign bit and monotonic within each half', () => {
    for (let code = 0; code < 256; code++) expect(ULAW_TABLE[code]! + ULAW_TABLE[code ^ 0x80]!).toBe(0);
    // Codes 0x80..0xFF are positive and grow as the code falls.
    for (let code = 0x81; code <= 0xff; code++) expect(ULAW_TABLE[code]!).toBeLessThan(ULAW_TABLE[code - 1]!);
  });
});

describe('A-law table', () => {
  it('expands the ITU-T reference codes to their linear values', () => {
    // 0xD5 / 0x55 are the smallest steps either side of zero (A-law has no zero code); 0xAA / 0x2A the largest.
    const expected: Array<[number, number]> = [
      [0xd5, 8],
      [0x55, -8],
      [0xd4, 24],
      [0xc5, 264],
      [0xaa, 32256],
      [0x2a, -32256],
    ];
    for (const [code, linear] of expected)
      expect(toInt16(ALAW_TABLE[code]!), `code 0x${code.toString(16)}`).toBe(linear);
  });

  it('is the inverse of the reference compressor for every code', () => {
    for (let code = 0; code < 256; code++)
      expect(linearToAlaw(toInt16(ALAW_TABLE[code]!)), `code 0x${code.toString(16)}`).toBe(code);
  });

  it('is odd-symmetric in the sign bit, with 256 distinct levels', () => {
    for (let code = 0; code < 256; code++) expect(ALAW_TABLE[code]! + ALAW_TABLE[code ^ 0x80]!).toBe(0);
    expect(new Set(ALAW_TABLE).size).toBe(256);
  });
});

describe('both tables', () => {
  it('stay within [-1, 1)', () => {
    for (const t of [ULAW_TABLE, ALAW_TABLE]) {
      expect(t).toHaveLength(256);
      for (const v of t) {
        expect(v).toBeGreaterThanOrEqual(-1);
        expect(v).toBeLessThan(1);
      }
    }
  });
});
