import { describe, expect, it } from 'vitest';
import { medianF0, trackPitch } from '../../src/audio/pitch.js';
import { seededRandom } from '../../src/audio/prng.js';
import { medianVoicedF0 } from '../helpers/signal.js';

const RATE = 16000;

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
