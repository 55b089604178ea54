/** Linear prediction: the fit of a known all-pole process, its stability, and the filter pair. */
import { describe, expect, it } from 'vitest';
import { inverseFilter, LpcAnalyzer, synthesisFilter } from '../../src/audio/lpc.js';
import { seededRandom } from '../../src/audio/prng.js';
import { polyFromPairs } from '../helpers/signal.js';

const RATE = 16000;

/** Unit-variance white noise (sum of uniforms, near-Gaussian), reproducible. */
function noise(length: number, seed: string): Float64Array {
  const rnd = seededRandom(seed);
  return Float64Array.from({ length }, () => (rnd() + rnd() + rnd() - 1.5) * 2);
}

/** The all-pole process x = e / A(z), with zero initial state. */
function allPole(a: Float64Array, e: Float64Array): Float64Array {
  const x = new Float64Array(e.length);
  for (let n = 0; n < e.length; n++) {
    let acc = e[n]!;
    for (let k = 1; k < a.length && k <= n; k++) acc -= a[k]! * x[n - k]!;
    x[n] = acc;
  }
  return x;
}

/**
 * Reflection coefficients of A(z) by the step-down recursion; A is minimum-phase (every root
 * strictly inside the unit circle) exactly when all of them have magnitude below 1.
 */
function reflectionCoefficients(a: Float64Array): number[] {
  let poly = Array.from(a);
  const ks: number[] = [];
  for (let m = poly.length - 1; m >= 1; m--) {
    const k = poly[m]!;
    ks.push(k);
    if (Math.abs(k) >= 1) break;
    const next = [1];
    for (let j = 1; j < m; j++) next.push((poly[j]! - k * poly[m - j]!) / (1 - k * k));
    poly = next;
  }
  return ks;
}

const isMinimumPhase = (a: Float64Array): boolean => reflectionCoefficients(a).every((k) => Math.abs(k) < 1);

describe('LpcAnalyzer', () => {
  it('recovers the predictor of a known all-pole process', () => {
    // Two resonances, at 1 kHz and 3 kHz, the kind a vocal tract has; moderately damped, since the
    // lag window deliberately widens sharp resonances (and so biases their coefficients).
    const truth = polyFromPairs([
      [0.85, (2 * Math.PI * 1000) / RATE],
      [0.75, (2 * Math.PI * 3000) / RATE],
    ]);
    const length = 32000;
    const x = allPole(truth, noise(length, 'lpc-ar4'));
    const a = new Float64Array(5);
    const err = new LpcAnalyzer(4, RATE).analyze(x, length, a);
    expect(a[0]).toBe(1);
    for (let k = 1; k <= 4; k++) expect(Math.abs(a[k]! - truth[k]!), `a[${k}]`).toBeLessThan(0.05);
    // The error power is the residual's energy: about the driving noise's (variance 1 per sample).
    expect(err / length).toBeGreaterThan(0.9);
    expect(err / length).toBeLessThan(1.2);
  });

  it('gives the identity filter and zero error for a silent frame', () => {
    const a = new Float64Array(11).fill(0.3);
    expect(new LpcAnalyzer(10, RATE).analyze(new Float64Array(400), 400, a)).toBe(0);
    expect(Array.from(a)).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('fits only the first `length` samples of the frame', () => {
    const x = noise(600, 'lpc-length');
    const a1 = new Float64Array(9);
    const a2 = new Float64Array(9);
    const analyzer = new LpcAnalyzer(8, RATE);
    const tail = Float64Array.from(x);
    tail.fill(1000, 400);
    expect(analyzer.analyze(x, 400, a1)).toBe(analyzer.analyze(tail, 400, a2));
    expect(a2).toEqual(a1);
  });

  it('is minimum-phase even on a pure tone, near-silence and clipped noise', () => {
    const frames: Array<[string, Float64Array]> = [
      ['pure tone', Float64Array.from({ length: 480 }, (_, n) => Math.sin((2 * Math.PI * 220 * n) / RATE))],
      [
        'two tones',
        Float64Array.from({ length: 480 }, (_, n) => Math.sin(n * 0.3) + 1e-3 * Math.sin(n * 2.1)),
      ],
      ['near silence', noise(480, 'lpc-quiet').map((v) => v * 1e-9)],
      ['clipped noise', noise(480, 'lpc-clip').map((v) => Math.sign(v))],
      ['DC', new Float64Array(480).fill(0.5)],
    ];
    for (const order of [10, 20, 24]) {
      const analyzer = new LpcAnalyzer(order, RATE);
      const a = new Float64Array(order + 1);
      for (const [name, frame] of frames) {
        const err = analyzer.analyze(frame, frame.length, a);
        expect(err, `${name}, order ${order}`).toBeGreaterThan(0);
        expect(isMinimumPhase(a), `${name}, order ${order}`).toBe(true);
      }
    }
  });
});

describe('inverseFilter and synthesisFilter', () => {
  it('undo each other given the signal history as initial state', () => {
    const a = polyFromPairs([
      [0.97, 0.3],
      [0.8, 1.4],
      [0.6, 2.5],
    ]);
    const p = a.length - 1;
    const length = 2000;
    const x = noise(length, 'lpc-pair');
    const e = new Float64Array(length);
    inverseFilter(a, x, e, length);
    // The first p samples are history only: never written.
    expect(Array.from(e.subarray(0, p))).toEqual(new Array(p).fill(0));
    const y = new Float64Array(length);
    y.set(x.subarray(0, p));
    synthesisFilter(a, e, y, length);
    for (let n = 0; n < length; n++) expect(Math.abs(y[n]! - x[n]!)).toBeLessThan(1e-9);
  });

  it('whitens the process the predictor was fitted to', () => {
    const truth = polyFromPairs([[0.95, 0.4]]);
    const driving = noise(8000, 'lpc-whiten');
    const x = allPole(truth, driving);
    const e = new Float64Array(x.length);
    inverseFilter(truth, x, e, x.length);
    for (let n = truth.length - 1; n < x.length; n++) expect(e[n]).toBeCloseTo(driving[n]!, 9);
  });

  it('with the identity filter, pass samples through unchanged', () => {
    const identity = Float64Array.from([1]);
    const x = noise(50, 'lpc-identity');
    const e = new Float64Array(50);
    inverseFilter(identity, x, e, 50);
    expect(e).toEqual(x);
    const y = new Float64Array(50);
    synthesisFilter(identity, e, y, 50);
    expect(y).toEqual(x);
  });
});
