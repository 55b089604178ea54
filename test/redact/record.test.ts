/** The recorder's progress snapshots: throttled, yet the last change always reaches the report. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHalt, Recorder } from '../../src/redact/record.js';
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

describe('Recorder progress', () => {
  it('a change dropped by the throttle still reaches the report once the burst is over', () => {
    const { rec, last, count } = recorder();
    rec.progress.waiting = 2;
    rec.changed();
    expect(last()?.waiting).toBe(2);
    // A job collected right after: within the throttle, and nothing changes after it.
    rec.progress.waiting = 1;
    rec.changed();
    vi.runOnlyPendingTimers();
    expect(last()?.waiting).toBe(1);
    // One trailing snapshot for a burst, not one per dropped change.
    const before = count();
    rec.progress.waiting = 0;
    rec.changed();
    rec.progress.inFlight = 3;
    rec.changed();
    vi.runOnlyPendingTimers();
    expect(count()).toBe(before + 1);
    expect(last()).toMatchObject({ waiting: 0, inFlight: 3 });
  });

  it('a forced (final) snapshot leaves no trailing one behind', () => {
    const { rec, count } = recorder();
    rec.changed();
    rec.progress.waiting = 1;
    rec.changed();
    rec.changed(true);
    const after = count();
    expect(vi.getTimerCount()).toBe(0);
    vi.runOnlyPendingTimers();
    expect(count()).toBe(after);
  });

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
