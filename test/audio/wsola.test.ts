import { describe, expect, it } from 'vitest';
import { PitchShifter } from '../../src/audio/wsola.js';
import { sine, toneHz } from '../helpers/signal.js';

const RATE = 16000;

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
