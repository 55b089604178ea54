import { describe, expect, it } from 'vitest';
import { PeakLimiter } from '../../src/audio/limiter.js';
import { seededRandom } from '../../src/audio/prng.js';

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
