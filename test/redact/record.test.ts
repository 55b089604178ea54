/** The recorder's outcomes in its progress snapshots (the snapshots themselves: progress-counts.test.ts). */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHalt } from '../../src/redact/halt.js';
import { Recorder } from '../../src/redact/record.js';
import type { Progress } from '../../src/redact/outcome.js';
import type { PlanEntry } from '../../src/redact/plan.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function recorder() {
  const seen: Progress[] = [];
  const rec = new Recorder({
    journal: undefined,
    fingerprint: '',
    fields: {},
    clock: { now: () => Date.now() },
    halt: createHalt(),
    emit: () => {},
    onProgress: (progress) => seen.push(progress),
    total: 11,
  });
  return { rec, last: () => seen.at(-1), count: () => seen.length };
}

describe('Recorder', () => {
  it('tells the report the files under way, when the newest began, and how long a file takes', () => {
    const { rec, last } = recorder();
    const entry = (name: string) => ({ input: `/in/${name}`, display: name, outputDisplay: '' }) as PlanEntry;
    const [a, b, c] = [entry('a.wav'), entry('b.wav'), entry('c.wav')];
    const t0 = Date.now();
    rec.begun(a);
    vi.advanceTimersByTime(1000);
    rec.begun(b);
    vi.advanceTimersByTime(3000);
    rec.pending(a, 'not finished');
    rec.changed(true);
    expect(last()).toMatchObject({ underWay: 1, newestBegunAt: t0 + 1000, typicalFileMs: 4000 });
    // Its job waited for after the upload: the file keeps the time it began.
    rec.begun(b);
    vi.advanceTimersByTime(3000);
    rec.skipped(c, 'already done');
    rec.pending(b, 'not finished');
    rec.changed(true);
    expect(last()).toMatchObject({ underWay: 0, newestBegunAt: undefined, typicalFileMs: 5000 });
  });
});
