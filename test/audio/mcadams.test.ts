import { describe, expect, it } from 'vitest';
import { McAdamsWarp } from '../../src/audio/mcadams.js';
import { polyFromPairs } from '../helpers/signal.js';

const RATE = 16000;

describe('McAdams pole warp', () => {
  const pairs: Array<[number, number]> = [
    [0.97, (2 * Math.PI * 500) / RATE],
    [0.95, (2 * Math.PI * 1500) / RATE],
    [0.93, (2 * Math.PI * 2500) / RATE],
    [0.9, (2 * Math.PI * 5000) / RATE],
  ];

  it('moves each pole angle φ to φ^α and keeps its magnitude', () => {
    const a = polyFromPairs(pairs);
    const warped = new Float64Array(a.length);
    new McAdamsWarp(a.length - 1).apply(a, 0.8, warped);
    const expected = polyFromPairs(pairs.map(([rho, phi]) => [rho, phi ** 0.8]));
    for (let i = 0; i < a.length; i++) expect(warped[i]).toBeCloseTo(expected[i]!, 9);
  });

  it('is the identity for α = 1 (up to root-finding precision)', () => {
    const a = polyFromPairs(pairs);
    const warped = new Float64Array(a.length);
    new McAdamsWarp(a.length - 1).apply(a, 1 + 1e-12, warped);
    for (let i = 0; i < a.length; i++) expect(warped[i]).toBeCloseTo(a[i]!, 9);
  });
});
