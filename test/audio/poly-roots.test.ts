import { describe, expect, it } from 'vitest';
import { AberthSolver } from '../../src/audio/poly-roots.js';
import { seededRandom } from '../../src/audio/prng.js';
import { polyFromPairs } from '../helpers/signal.js';

describe('Aberth root finder', () => {
  it('recovers 10 known conjugate pole pairs of a degree-20 polynomial', () => {
    const rnd = seededRandom('roots-test');
    const pairs: Array<[number, number]> = Array.from({ length: 10 }, (_, k) => [
      0.5 + 0.49 * rnd(),
      ((k + 0.2 + 0.6 * rnd()) * Math.PI) / 10,
    ]);
    const solver = new AberthSolver(20);
    expect(solver.solve(polyFromPairs(pairs))).toBe(true);
    for (const [rho, theta] of pairs) {
      let best = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 20; i++) {
        best = Math.min(
          best,
          Math.hypot(solver.re[i]! - rho * Math.cos(theta), solver.im[i]! - rho * Math.sin(theta)),
        );
      }
      expect(best).toBeLessThan(1e-8);
    }
  });
});
