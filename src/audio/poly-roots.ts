/**
 * Roots of a monic real polynomial by the Aberth–Ehrlich method (simultaneous
 * Newton iteration with mutual repulsion, cubic convergence).
 *
 * Chosen over companion-matrix eigenvalues because consecutive 10 ms LPC
 * frames have nearly the same poles: warm-starting from the previous frame's
 * roots typically converges in 3–6 sweeps of O(n²), far cheaper than an
 * O(n³) QR iteration per frame.
 */
export class AberthSolver {
  /** Current root estimates (real and imaginary parts); kept between calls as the warm start. */
  readonly re: Float64Array;
  readonly im: Float64Array;
  private readonly done: Uint8Array;
  private warm = false;

  constructor(readonly degree: number) {
    this.re = new Float64Array(degree);
    this.im = new Float64Array(degree);
    this.done = new Uint8Array(degree);
  }

  /** Forget the warm start (e.g. after a frame whose roots could not be trusted). */
  reset(): void {
    this.warm = false;
  }

  private coldStart(radius: number): void {
    // The angular offset breaks the real-axis symmetry that would otherwise stall
    // conjugate pairs on the real line.
    const n = this.degree;
    for (let k = 0; k < n; k++) {
      const t = (2 * Math.PI * k) / n + 0.4;
      this.re[k] = radius * Math.cos(t);
      this.im[k] = radius * Math.sin(t);
    }
  }

  /**
   * Finds the roots of z^n + c[1]·z^(n−1) + … + c[n] (c[0] is ignored and taken
   * as 1). Returns false if the iteration did not converge even from a cold start.
   */
  solve(c: Float64Array): boolean {
    if (this.warm && this.iterate(c, 40)) return true;
    this.coldStart(0.9);
    this.warm = this.iterate(c, 300);
    return this.warm;
  }

  private iterate(c: Float64Array, maxSweeps: number): boolean {
    const n = this.degree;
    const { re, im, done } = this;
    done.fill(0);
    let remaining = n;
    for (let sweep = 0; sweep < maxSweeps && remaining > 0; sweep++) {
      for (let i = 0; i < n; i++) {
        if (done[i]) continue;
        const zr = re[i]!;
        const zi = im[i]!;
        // Horner for p(z) and p'(z) together.
        let pr = 1;
        let pi = 0;
        let dr = 0;
        let di = 0;
        for (let k = 1; k <= n; k++) {
          const ndr = dr * zr - di * zi + pr;
          di = dr * zi + di * zr + pi;
          dr = ndr;
          const npr = pr * zr - pi * zi + c[k]!;
          pi = pr * zi + pi * zr;
          pr = npr;
        }
        if (pr === 0 && pi === 0) {
          done[i] = 1;
          remaining--;
          continue;
        }
        const dd = dr * dr + di * di;
        if (dd === 0) {
          // Stationary point of p: nudge off it and try again next sweep.
          re[i] = zr + 1e-3;
          im[i] = zi + 1e-3;
          continue;
        }
        // Newton quotient N = p / p'.
        const nr = (pr * dr + pi * di) / dd;
        const ni = (pi * dr - pr * di) / dd;
        // Repulsion S = Σ_{j≠i} 1 / (z_i − z_j).
        let sr = 0;
        let si = 0;
        for (let j = 0; j < n; j++) {
          if (j === i) continue;
          const dx = zr - re[j]!;
          const dy = zi - im[j]!;
          const m = dx * dx + dy * dy;
          if (m === 0) continue;
          sr += dx / m;
          si -= dy / m;
        }
        // Aberth step w = N / (1 − N·S).
        const qr = 1 - (nr * sr - ni * si);
        const qi = -(nr * si + ni * sr);
        const qd = qr * qr + qi * qi;
        const wr = qd === 0 ? nr : (nr * qr + ni * qi) / qd;
        const wi = qd === 0 ? ni : (ni * qr - nr * qi) / qd;
        re[i] = zr - wr;
        im[i] = zi - wi;
        const step = wr * wr + wi * wi;
        const scale = 1 + zr * zr + zi * zi;
        if (step <= 1e-26 * scale) {
          done[i] = 1;
          remaining--;
        }
      }
    }
    if (remaining > 0) return false;
    for (let i = 0; i < n; i++) if (!Number.isFinite(re[i]!) || !Number.isFinite(im[i]!)) return false;
    return true;
  }
}
