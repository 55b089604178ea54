import { describe, expect, it } from 'vitest';
import { PeakLimiter } from '../../src/audio/limiter.js';
import { LpcResynthesizer } from '../../src/audio/lpc-resynth.js';
import { McAdamsWarp } from '../../src/audio/mcadams.js';
import { medianF0, trackPitch } from '../../src/audio/pitch.js';
import { AberthSolver } from '../../src/audio/poly-roots.js';
import { seededRandom } from '../../src/audio/prng.js';
import { StreamingResampler } from '../../src/audio/resample.js';
import { planVoice } from '../../src/audio/voice-map.js';
import { PitchShifter } from '../../src/audio/wsola.js';
import { medianVoicedF0 } from '../helpers/signal.js';

const RATE = 16000;

/** Coefficients (powers of z⁻¹, a[0] = 1) of Π (1 − 2ρcosθ z⁻¹ + ρ² z⁻²) over the given pole pairs. */
function polyFromPairs(pairs: Array<[number, number]>): Float64Array {
  let p = [1];
  for (const [rho, theta] of pairs) {
    const q = [1, -2 * rho * Math.cos(theta), rho * rho];
    const r = new Array(p.length + 2).fill(0);
    p.forEach((pv, i) => {
      q.forEach((qv, j) => {
        r[i + j] += pv * qv;
      });
    });
    p = r;
  }
  return Float64Array.from(p);
}

function sine(hz: number, seconds: number, rate: number, amp = 0.5): Float32Array {
  return Float32Array.from(
    { length: Math.round(seconds * rate) },
    (_, i) => amp * Math.sin((2 * Math.PI * hz * i) / rate),
  );
}

/** Frequency from upward zero crossings (fine for a clean tone). */
function toneHz(x: Float32Array, rate: number): number {
  const crossings: number[] = [];
  for (let i = 1; i < x.length; i++) {
    if (x[i - 1]! < 0 && x[i]! >= 0) crossings.push(i - 1 + x[i - 1]! / (x[i - 1]! - x[i]!));
  }
  return ((crossings.length - 1) * rate) / (crossings.at(-1)! - crossings[0]!);
}

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

describe('LPC re-synthesis', () => {
  it('reconstructs the input exactly when α = 1 and the pitch is unchanged', () => {
    const rnd = seededRandom('resynth-test');
    const x = Float32Array.from({ length: RATE }, (_, i) => 0.3 * Math.sin(i * 0.07) + 0.2 * (rnd() - 0.5));
    const y = new Float32Array(x.length);
    new LpcResynthesizer(x, 1, null).read(y);
    let maxDiff = 0;
    for (let i = 0; i < x.length; i++) maxDiff = Math.max(maxDiff, Math.abs(y[i]! - x[i]!));
    expect(maxDiff).toBeLessThan(1e-5);
  });

  it('gives the same output however the reads are split', () => {
    const x = sine(180, 1, RATE);
    const whole = new Float32Array(x.length);
    new LpcResynthesizer(x, 0.85, null).read(whole);
    const pieces = new Float32Array(x.length);
    const r = new LpcResynthesizer(x, 0.85, null);
    for (let at = 0, step = 1; at < x.length; at += step, step = (step * 7) % 997) {
      r.read(pieces.subarray(at, Math.min(x.length, at + step)));
    }
    expect(pieces).toEqual(whole);
  });
});

describe('streaming resampler', () => {
  it.each([
    [44100, 16000],
    [8000, 16000],
    [22050, 16000],
    [48000, 16000],
  ])('%d → %d Hz keeps a 1 kHz tone, its level and the exact duration', (inRate, outRate) => {
    const x = sine(1000, 1.37, inRate);
    const r = new StreamingResampler(inRate, outRate);
    const parts: Float32Array[] = [];
    // Odd chunk sizes on purpose.
    for (let at = 0, step = 333; at < x.length; at += step, step = 1 + ((step * 13) % 4093)) {
      parts.push(r.push(x.subarray(at, Math.min(x.length, at + step))));
    }
    parts.push(r.finish());
    const y = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
    let o = 0;
    for (const p of parts) {
      y.set(p, o);
      o += p.length;
    }
    expect(y.length).toBe(Math.round((x.length * outRate) / inRate));
    const mid = y.subarray(200, y.length - 200);
    expect(toneHz(mid, outRate)).toBeCloseTo(1000, 0);
    const peak = Math.max(...mid.map(Math.abs));
    expect(peak).toBeGreaterThan(0.49);
    expect(peak).toBeLessThan(0.51);
  });

  it('removes content above the new Nyquist instead of folding it down', () => {
    const x = sine(11000, 1, 48000); // above 8 kHz: must vanish at 16 kHz
    const r = new StreamingResampler(48000, 16000);
    const y = new Float32Array([...r.push(x), ...r.finish()]);
    const mid = y.subarray(500, y.length - 500);
    expect(Math.max(...mid.map(Math.abs))).toBeLessThan(0.005);
  });
});

describe('pitch shifter (WSOLA + resampling)', () => {
  it.each([1.5, 1 / 1.5, 1.2])('ratio %f multiplies a tone by the ratio and keeps the length', (ratio) => {
    const x = sine(200, 2, RATE);
    const y = new Float32Array(x.length);
    new PitchShifter(x, ratio).read(y);
    const mid = y.subarray(4000, y.length - 4000);
    expect(toneHz(mid, RATE) / 200).toBeCloseTo(ratio, 2);
    const peak = Math.max(...mid.map(Math.abs));
    expect(peak).toBeGreaterThan(0.4);
    expect(peak).toBeLessThan(0.6);
  });

  it('follows a time-varying ratio', () => {
    const x = sine(150, 2, RATE);
    const values = Float32Array.from({ length: 200 }, (_, k) => (k < 100 ? 1.2 : 0.8));
    const y = new Float32Array(x.length);
    new PitchShifter(x, { values, hop: 160 }).read(y);
    expect(toneHz(y.subarray(2000, 14000), RATE)).toBeCloseTo(180, -1);
    expect(toneHz(y.subarray(18000, 30000), RATE)).toBeCloseTo(120, -1);
  });
});

describe('F0 tracker', () => {
  it('finds the F0 of a glottal-like pulse train, as the independent test estimator does', () => {
    const f0 = 137;
    const x = new Float32Array(RATE * 2);
    for (let t = 0; t < x.length; t += RATE / f0) {
      for (let i = 0; i < 60 && t + i < x.length; i++) {
        const idx = Math.round(t) + i;
        x[idx] = x[idx]! + 0.5 * Math.exp(-i / 12) * Math.sin(i * 0.5);
      }
    }
    const ours = medianF0(trackPitch(x));
    expect(ours).not.toBeNull();
    expect(ours! / f0).toBeCloseTo(1, 2);
    expect(medianVoicedF0(x, RATE) / f0).toBeCloseTo(1, 2);
  });

  it('reports no F0 for noise', () => {
    const rnd = seededRandom('noise');
    const x = Float32Array.from({ length: RATE }, () => rnd() - 0.5);
    expect(medianF0(trackPitch(x))).toBeNull();
  });
});

describe('peak limiter', () => {
  it('never exceeds the ceiling, keeps the length and leaves quiet passages untouched', () => {
    const rnd = seededRandom('limiter');
    const x = Float32Array.from({ length: 20_000 }, (_, i) => {
      const base = 0.3 * Math.sin(i * 0.05);
      return i > 8000 && i < 8400 ? base * 5 + (rnd() - 0.5) : base;
    });
    const limiter = new PeakLimiter(0.98);
    const chunks = [limiter.process(x.subarray(0, 7777)), limiter.process(x.subarray(7777)), limiter.flush()];
    const y = new Float32Array(chunks.reduce((n, c) => n + c.length, 0));
    let o = 0;
    for (const c of chunks) {
      y.set(c, o);
      o += c.length;
    }
    expect(y.length).toBe(x.length);
    expect(Math.max(...y.map(Math.abs))).toBeLessThanOrEqual(0.98 + 1e-6);
    for (let i = 0; i < 7000; i++) expect(y[i]).toBe(x[i]);
  });
});

describe('request mapping', () => {
  it('gender=opposite goes up for a low voice and down for a high one', () => {
    expect(planVoice({ seed: 1, gender: 'opposite' }, 110).pitchRatio).toBeCloseTo(1.5, 9);
    expect(planVoice({ seed: 1, gender: 'opposite' }, 220).pitchRatio).toBeCloseTo(1 / 1.5, 9);
  });

  it('f and m target 210 Hz and 120 Hz with the ratio clamped to [0.5, 2]', () => {
    expect(planVoice({ seed: 1, gender: 'f' }, 140).pitchRatio).toBeCloseTo(1.5, 9);
    expect(planVoice({ seed: 1, gender: 'f' }, 80).pitchRatio).toBe(2);
    expect(planVoice({ seed: 1, gender: 'm' }, 200).pitchRatio).toBeCloseTo(0.6, 9);
    expect(planVoice({ seed: 1, gender: 'm' }, 300).pitchRatio).toBe(0.5);
  });

  it('age chooses α; unset and unknown values still warp the formants', () => {
    expect(planVoice({ seed: 1, age: 'young-adult' }, 120).alpha).toBe(0.8);
    expect(planVoice({ seed: 1, age: 'Middle_Aged Adult' }, 120).alpha).toBe(0.88);
    expect(planVoice({ seed: 1, age: 'senior-adult' }, 120).alpha).toBe(1.1);
    expect(planVoice({ seed: 1 }, 120).alpha).toBe(0.9);
    expect(planVoice({ seed: 1, age: 'martian' }, 120).alpha).toBe(0.9);
  });

  it('random draws depend on the seed only, and cover every choice', () => {
    const ages = new Set<string>();
    const genders = new Set<string>();
    for (let seed = 0; seed < 200; seed++) {
      const plan = planVoice({ seed, age: 'random', gender: 'random' }, 120);
      expect(planVoice({ seed, age: 'random', gender: 'random' }, 120)).toEqual(plan);
      ages.add(plan.resolved.age);
      genders.add(plan.resolved.gender);
    }
    expect([...ages].sort()).toEqual(['middle-aged-adult', 'senior-adult', 'young-adult']);
    expect([...genders].sort()).toEqual(['f', 'm']);
  });

  it('language and model_id do not change the plan', () => {
    expect(planVoice({ seed: 5, gender: 'f', language: 'de', model_id: 'x' }, 120)).toEqual(
      planVoice({ seed: 5, gender: 'f' }, 120),
    );
  });
});
