import { describe, expect, it } from 'vitest';
import { randomHex } from '../src/random-hex.js';

describe('randomHex', () => {
  it('gives hex digits of the length asked, every digit position varying (no fixed UUID digit)', () => {
    const draws = Array.from({ length: 400 }, () => randomHex(30));
    for (const draw of draws) expect(draw).toMatch(/^[0-9a-f]{30}$/);
    expect(new Set(draws).size).toBe(draws.length);
    for (let at = 0; at < 30; at++) expect(new Set(draws.map((draw) => draw[at])).size).toBeGreaterThan(8);
    expect(randomHex(8)).toMatch(/^[0-9a-f]{8}$/);
  });
});
