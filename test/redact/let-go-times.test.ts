import { describe, expect, it } from 'vitest';
import { LetGoTimes } from '../../src/redact/let-go-times.js';

describe('the times of jobs let go for the cap', () => {
  it('takes out those wholly before a start, and tells those surely from it', () => {
    const times = new LetGoTimes();
    for (const ms of [1000, 1500, 2000, 2999, 3000, 9000]) times.add(ms);
    times.dropBefore(2500);
    // 1000 and 1500 are out; 2000 and 2999 share a second with the start: either side.
    expect(times.total).toBe(4);
    expect(times.atLeast(2500)).toBe(2);
    times.dropBefore(3000);
    expect(times.total).toBe(2);
    expect(times.atLeast(3000)).toBe(2);
  });

  it('holds a bounded number of spans for 1,000,000 distinct times, the count whole', () => {
    const times = new LetGoTimes();
    const start = 600_000_000;
    for (let i = 0; i < 1_000_000; i++) times.add(i * 1000 + 1);
    expect(times.total).toBe(1_000_000);
    const surely = times.atLeast(start);
    times.dropBefore(start);
    // 400,000 are from the start on; a wider span straddling it leaves a range, never a wrong side.
    expect(surely).toBeLessThanOrEqual(400_000);
    expect(times.total).toBeGreaterThanOrEqual(400_000);
    expect(times.total - surely).toBeLessThan(1000);
  });

  it('reads times before 1970 (negative) into the right span', () => {
    const times = new LetGoTimes();
    for (let i = 0; i < 10_000; i++) times.add(-5_000_000 + i * 1000);
    times.dropBefore(-2_000_000);
    expect(times.total).toBeGreaterThanOrEqual(7000);
    expect(times.atLeast(-2_000_000)).toBeLessThanOrEqual(7000);
  });
});
