import { describe, expect, it } from 'vitest';
import { LpcResynthesizer } from '../../src/audio/lpc-resynth.js';
import { seededRandom } from '../../src/audio/prng.js';
import { sine } from '../helpers/signal.js';

const RATE = 16000;

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
