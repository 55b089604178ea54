/**
 * The McAdams transformation of an LPC envelope: each complex pole pair at
 * angle ±φ (radians, 0 < φ < π) moves to ±φ^α with its magnitude (formant
 * bandwidth) kept. With α < 1, poles below 1 rad (≈2.5 kHz at 16 kHz) move up
 * and those above move down, so F1/F2 rise while the top of the spectrum
 * compresses; α > 1 does the opposite. Real poles (spectral tilt) are kept.
 */
import { AberthSolver } from './poly-roots.js';

/** Imaginary parts below this count as a real root (root accuracy is ~1e-12). */
const REAL_EPS = 1e-9;
/** Keeps warped angles strictly inside (0, π) so a pair never collapses onto the real axis. */
const ANGLE_MARGIN = 1e-4;

export class McAdamsWarp {
  private readonly solver: AberthSolver;
  private readonly poly: Float64Array;
  /** Frames whose roots could not be trusted and were passed through unwarped. */
  fallbacks = 0;

  constructor(readonly order: number) {
    this.solver = new AberthSolver(order);
    this.poly = new Float64Array(order + 1);
  }

  /**
   * Writes into `out` (length order+1) the warped polynomial of `a`
   * (a[0] = 1). Both index 0..order in powers of z⁻¹.
   */
  apply(a: Float64Array, alpha: number, out: Float64Array): void {
    if (alpha === 1 || !this.solver.solve(a)) {
      if (alpha !== 1) {
        this.fallbacks++;
        this.solver.reset();
      }
      out.set(a);
      return;
    }
    const { re, im } = this.solver;
    let upper = 0;
    let lower = 0;
    for (let i = 0; i < this.order; i++) {
      if (im[i]! > REAL_EPS) upper++;
      else if (im[i]! < -REAL_EPS) lower++;
    }
    if (upper !== lower) {
      // Unpaired complex roots would give a polynomial with complex coefficients.
      this.fallbacks++;
      this.solver.reset();
      out.set(a);
      return;
    }
    const p = this.poly;
    p.fill(0);
    p[0] = 1;
    let deg = 0;
    for (let i = 0; i < this.order; i++) {
      const zr = re[i]!;
      const zi = im[i]!;
      if (zi < -REAL_EPS) continue; // the conjugate is handled with its upper partner
      if (zi <= REAL_EPS) {
        // (1 − r z⁻¹)
        for (let k = deg + 1; k >= 1; k--) p[k] = p[k]! - zr * p[k - 1]!;
        deg += 1;
        continue;
      }
      // Magnitude kept, but never closer to the unit circle than 0.9995: a margin of stability.
      const rho = Math.min(Math.hypot(zr, zi), 0.9995);
      const phi = Math.atan2(zi, zr) ** alpha;
      const theta = Math.min(Math.max(phi, ANGLE_MARGIN), Math.PI - ANGLE_MARGIN);
      // (1 − 2ρ cos θ z⁻¹ + ρ² z⁻²) for the pair ρe^{±iθ}
      const b1 = -2 * rho * Math.cos(theta);
      const b2 = rho * rho;
      for (let k = deg + 2; k >= 1; k--) p[k] = p[k]! + b1 * p[k - 1]! + (k >= 2 ? b2 * p[k - 2]! : 0);
      deg += 2;
    }
    out.set(p);
  }
}
