/**
 * Kaiser-windowed sinc: the lowpass kernel shared by the decoder's rate
 * converter and the pitch shifter's variable-rate reader.
 */

/** Zeroth-order modified Bessel function of the first kind (power series; converges fast for β ≤ 20). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const q = (x * x) / 4;
  for (let k = 1; k < 50; k++) {
    term *= q / (k * k);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

/**
 * sinc(u)·kaiser(u / zeroCrossings), u in units of the cutoff's zero crossings.
 * β = 8.6 puts the stop band around −90 dB, far below 16-bit quantisation.
 */
export function kaiserSinc(u: number, zeroCrossings: number, beta = 8.6): number {
  const r = u / zeroCrossings;
  if (r <= -1 || r >= 1) return 0;
  const sinc = u === 0 ? 1 : Math.sin(Math.PI * u) / (Math.PI * u);
  return (sinc * besselI0(beta * Math.sqrt(1 - r * r))) / besselI0(beta);
}

/**
 * The kernel tabulated on a fine grid of |u| for readers whose fractional
 * positions are arbitrary reals (no rational phase structure to exploit).
 * Linear interpolation between 512 points per zero crossing is accurate to
 * about 1e-6, well under the 16-bit output's resolution.
 */
export class SincTable {
  readonly resolution = 512;
  readonly table: Float64Array;

  constructor(readonly zeroCrossings: number) {
    const n = zeroCrossings * this.resolution;
    this.table = new Float64Array(n + 2);
    for (let i = 0; i <= n; i++) this.table[i] = kaiserSinc(i / this.resolution, zeroCrossings);
  }
}
