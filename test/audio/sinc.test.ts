/** The Kaiser-windowed sinc kernel: its shape, its frequency response and its tabulated form. */
import { describe, expect, it } from 'vitest';
import { kaiserSinc, SincTable } from '../../src/audio/sinc.js';

/**
 * |H(f)| of the kernel, f in cycles per unit of u: the continuous transform approximated by a
 * Riemann sum over `perUnit` points per unit (the kernel is smooth, so this converges quickly).
 */
function response(zeroCrossings: number, f: number, perUnit = 64): number {
  let re = 0;
  let im = 0;
  for (let i = -zeroCrossings * perUnit; i <= zeroCrossings * perUnit; i++) {
    const u = i / perUnit;
    const k = kaiserSinc(u, zeroCrossings);
    re += k * Math.cos(2 * Math.PI * f * u);
    im += k * Math.sin(2 * Math.PI * f * u);
  }
  return Math.hypot(re, im) / perUnit;
}

const dB = (ratio: number): number => 20 * Math.log10(ratio);

function frequencies(from: number, to: number, step: number): number[] {
  const out: number[] = [];
  for (let f = from; f <= to; f += step) out.push(f);
  return out;
}

describe('kaiserSinc', () => {
  it('is 1 at the centre, 0 at every other zero crossing and outside its support', () => {
    expect(kaiserSinc(0, 16)).toBe(1);
    for (let k = 1; k < 16; k++) {
      expect(Math.abs(kaiserSinc(k, 16))).toBeLessThan(1e-15);
      expect(Math.abs(kaiserSinc(-k, 16))).toBeLessThan(1e-15);
    }
    for (const u of [16, -16, 16.5, 100, -1e9]) expect(kaiserSinc(u, 16)).toBe(0);
  });

  it('is even, and between its zeros follows the sinc under a window that shrinks outwards', () => {
    for (const u of [0.25, 0.5, 1.5, 3.3, 7.9, 12.1, 15.99])
      expect(kaiserSinc(-u, 16)).toBe(kaiserSinc(u, 16));
    // Near the centre the window is ~1, so the kernel is the plain sinc.
    const sinc = (u: number): number => Math.sin(Math.PI * u) / (Math.PI * u);
    expect(kaiserSinc(0.5, 16)).toBeCloseTo(sinc(0.5), 2);
    // Towards the edge it tapers: the window's share falls monotonically.
    const share = [0.5, 4.5, 8.5, 12.5, 15.5].map((u) => kaiserSinc(u, 16) / sinc(u));
    for (let i = 1; i < share.length; i++) expect(share[i]!).toBeLessThan(share[i - 1]!);
    expect(share[share.length - 1]!).toBeGreaterThan(0);
  });

  it('interpolates a constant exactly enough: taps one unit apart sum to 1 at any phase', () => {
    for (const zc of [8, 16]) {
      for (const phase of frequencies(0, 0.99, 0.07)) {
        let sum = 0;
        for (let k = -zc; k <= zc; k++) sum += kaiserSinc(k + phase, zc);
        expect(Math.abs(sum - 1)).toBeLessThan(1e-4);
      }
    }
  });

  it('has the resampler stop band near -90 dB and a flat pass band (16 zero crossings)', () => {
    const dc = response(16, 0);
    expect(dc).toBeCloseTo(1, 4);
    const passRipple = Math.max(...frequencies(0, 0.4, 0.02).map((f) => Math.abs(response(16, f) / dc - 1)));
    expect(passRipple).toBeLessThan(1e-3);
    const stop = Math.max(...frequencies(0.6, 2, 0.02).map((f) => response(16, f) / dc));
    expect(dB(stop)).toBeLessThan(-85);
  });

  it('keeps the same stop-band depth with 8 zero crossings, over a wider transition', () => {
    const dc = response(8, 0);
    const stop = Math.max(...frequencies(0.7, 2, 0.02).map((f) => response(8, f) / dc));
    expect(dB(stop)).toBeLessThan(-80);
  });
});

describe('SincTable', () => {
  it('tabulates the kernel at 512 points per zero crossing, with a zero guard entry at the end', () => {
    const t = new SincTable(8);
    expect(t.zeroCrossings).toBe(8);
    expect(t.table).toHaveLength(8 * 512 + 2);
    expect(t.table[0]).toBe(1);
    for (const i of [1, 100, 511, 512, 2047, 4095]) expect(t.table[i]).toBe(kaiserSinc(i / 512, 8));
    // The last tabulated point is the support's edge, and the guard after it lets a reader at
    // the very edge interpolate without a bounds check.
    expect(t.table[8 * 512]).toBe(0);
    expect(t.table[8 * 512 + 1]).toBe(0);
  });

  it('linearly interpolated, matches the kernel to about 1e-6 anywhere', () => {
    const t = new SincTable(8);
    let worst = 0;
    for (let x = 0; x < 8; x += 0.000731) {
      const p = x * t.resolution;
      const i = Math.floor(p);
      const frac = p - i;
      const value = t.table[i]! * (1 - frac) + t.table[i + 1]! * frac;
      worst = Math.max(worst, Math.abs(value - kaiserSinc(x, 8)));
    }
    expect(worst).toBeLessThan(2e-6);
  });
});
