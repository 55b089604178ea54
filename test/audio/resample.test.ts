import { describe, expect, it } from 'vitest';
import { StreamingResampler } from '../../src/audio/resample.js';
import { sine, toneHz } from '../helpers/signal.js';

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
