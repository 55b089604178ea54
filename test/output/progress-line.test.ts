import { describe, expect, it } from 'vitest';
import { fitParts, fitWidth } from '../../src/output/fit.js';
import { etaSeconds, type ProgressFigures, progressLine, RateMeter } from '../../src/output/progress-line.js';

const T0 = 1_800_000_000_000;

function figures(overrides: Partial<ProgressFigures> = {}): ProgressFigures {
  return {
    verb: 'redacting',
    total: 480,
    settled: 120,
    worked: 120,
    failed: 0,
    inFlight: 8,
    waiting: 0,
    underWay: 8,
    bytesSent: 36_200_000,
    startedAt: T0,
    ...overrides,
  };
}

describe('progressLine', () => {
  it('shows done/total, in flight, bytes, rate, elapsed and ETA', () => {
    expect(progressLine(figures(), T0 + 32_000, 4_100_000)).toBe(
      'redacting 120/480 · 8 in flight · 36.2 MB sent · 4.1 MB/s · 0:32 elapsed · ETA 1:36',
    );
  });

  it('names failures and jobs waited for, and leaves out what is zero or unknown', () => {
    const line = progressLine(figures({ failed: 2, inFlight: 0, waiting: 3, bytesSent: 0 }), T0 + 5000);
    expect(line).toBe('redacting 120/480 · 2 failed · 3 waiting for the service · 0:05 elapsed · ETA 0:15');
  });

  it('says the ETA is unknown until the service has settled a file, and omits it without a total', () => {
    expect(progressLine(figures({ settled: 3, worked: 0 }), T0 + 1000)).toMatch(/ETA -:--$/);
    expect(progressLine(figures({ total: 0, settled: 3 }), T0 + 1000)).toBe(
      'redacting 3 · 8 in flight · 36.2 MB sent · 0:01 elapsed',
    );
  });

  it('fits a width by leaving out the rate, the bytes and the time before the count and the ETA', () => {
    const wide = progressLine(figures({ failed: 1 }), T0 + 32_000, 4_100_000);
    for (const columns of [80, 60, 40, 30]) {
      const line = progressLine(figures({ failed: 1 }), T0 + 32_000, 4_100_000, columns);
      expect(line.length).toBeLessThanOrEqual(columns);
      expect(line.startsWith('redacting 120/480')).toBe(true);
      if (columns >= 40) expect(line).toMatch(/ETA \d/);
    }
    expect(progressLine(figures({ failed: 1 }), T0 + 32_000, 4_100_000, 200)).toBe(wide);
    expect(progressLine(figures(), T0 + 32_000, 4_100_000, 50)).toBe(
      'redacting 120/480 · 8 in flight · ETA 1:36',
    );
    // Narrower than the count alone: cut, never wrapped.
    expect(progressLine(figures(), T0, undefined, 10)).toBe('redacting…');
  });

  it('keeps the jobs waiting for the service before those in flight: they explain a long stall', () => {
    const stalled = figures({
      total: 11,
      settled: 8,
      worked: 8,
      inFlight: 2,
      waiting: 2,
      underWay: 2,
      bytesSent: 0,
    });
    expect(progressLine(stalled, T0 + 4000, undefined, 160)).toBe(
      'redacting 8/11 · 2 in flight · 2 waiting for the service · 0:04 elapsed · ETA 0:02',
    );
    expect(progressLine(stalled, T0 + 4000, undefined, 70)).toBe(
      'redacting 8/11 · 2 in flight · 2 waiting for the service · ETA 0:02',
    );
    expect(progressLine(stalled, T0 + 4000, undefined, 60)).toBe(
      'redacting 8/11 · 2 waiting for the service · ETA 0:02',
    );
  });
});

describe('etaSeconds', () => {
  it('is the remaining files at the pace of those settled by the service so far', () => {
    expect(etaSeconds(figures({ total: 100, settled: 50, worked: 25 }), T0 + 10_000)).toBe(20);
    expect(etaSeconds(figures({ total: 100, settled: 100 }), T0 + 10_000)).toBe(0);
    expect(etaSeconds(figures({ worked: 0 }), T0 + 10_000)).toBeUndefined();
  });

  // 480 files, 8 at a time, 8 s each: the run settles one a second, but a file takes 8 s.
  const tail = (overrides: Partial<ProgressFigures>) =>
    figures({
      total: 480,
      settled: 479,
      worked: 479,
      inFlight: 1,
      underWay: 1,
      typicalFileMs: 8000,
      ...overrides,
    });

  it('is, for the last files under way, the typical time of a file less what they have taken', () => {
    // At the run's pace the last file would be due in a second; it has taken 2 s of its 8.
    expect(etaSeconds(tail({ newestBegunAt: T0 + 478_000 }), T0 + 480_000)).toBe(6);
    // A few under way: the newest one decides.
    const few = tail({ settled: 475, worked: 475, inFlight: 5, underWay: 5, newestBegunAt: T0 + 479_000 });
    expect(etaSeconds(few, T0 + 480_000)).toBe(7);
  });

  it('is at least the typical time of a file while some have not begun', () => {
    const notBegun = tail({ settled: 478, worked: 478, newestBegunAt: T0 + 479_000 });
    expect(etaSeconds(notBegun, T0 + 480_000)).toBe(8);
  });

  it('is unknown, not 0:00, when the files left have all taken longer than a file takes', () => {
    expect(etaSeconds(tail({ newestBegunAt: T0 + 470_000 }), T0 + 480_000)).toBeUndefined();
    expect(progressLine(tail({ newestBegunAt: T0 + 470_000 }), T0 + 480_000)).toMatch(/ETA -:--$/);
    // Nothing known of a file's time yet, and every file left under way: no figure either.
    expect(etaSeconds(tail({ typicalFileMs: undefined }), T0 + 480_000)).toBeUndefined();
  });

  it('never reads 0:00 while a file remains', () => {
    // 479 files of 0.2 s settled in 20 s: at that pace the last one is due in 0.04 s.
    const quick = tail({ typicalFileMs: 200, newestBegunAt: T0 + 19_900 });
    expect(etaSeconds(quick, T0 + 20_000)).toBe(1);
    expect(progressLine(quick, T0 + 20_000)).toMatch(/ETA 0:01$/);
  });
});

describe('RateMeter', () => {
  it('gives the rate over the last seconds, once a second of samples is there', () => {
    const meter = new RateMeter();
    meter.sample(T0, 0);
    meter.sample(T0 + 500, 500);
    expect(meter.rate()).toBeUndefined();
    meter.sample(T0 + 1000, 1000);
    expect(meter.rate()).toBe(1000);
    // Samples closer than a quarter second are not kept: the window stays small.
    meter.sample(T0 + 1001, 999_999);
    expect(meter.rate()).toBe(1000);
    // Old samples leave the 10-second window: the rate is what happens now.
    for (let t = 1250; t <= 30_000; t += 250) meter.sample(T0 + t, 1000);
    expect(meter.rate()).toBe(0);
  });
});

describe('fitWidth and fitParts', () => {
  it('cut by terminal columns, wide characters counting twice', () => {
    expect(fitWidth('abcdef', 4)).toBe('abc…');
    expect(fitWidth('abc', 4)).toBe('abc');
    expect(fitWidth('录音录音录音', 5)).toBe('录音…');
  });

  it('drop the highest rank first and keep the order', () => {
    const parts = [
      { text: 'aaaa', rank: 0 },
      { text: 'bbbb', rank: 2 },
      { text: 'cccc', rank: 1 },
    ];
    expect(fitParts(parts, ' ', 14)).toBe('aaaa bbbb cccc');
    expect(fitParts(parts, ' ', 10)).toBe('aaaa cccc');
    expect(fitParts(parts, ' ', 5)).toBe('aaaa');
    expect(fitParts(parts, ' ', 3)).toBe('aa…');
  });
});
