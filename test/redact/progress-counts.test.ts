/** Progress snapshots: throttled, yet the last change always reaches the report. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Progress } from '../../src/redact/outcome.js';
import { ProgressCounts } from '../../src/redact/progress-counts.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function counts() {
  const seen: Progress[] = [];
  const rec = new ProgressCounts({
    clock: { now: () => Date.now() },
    onProgress: (progress) => seen.push(progress),
    total: 11,
  });
  return { rec, last: () => seen.at(-1), count: () => seen.length };
}

describe('ProgressCounts', () => {
  it('a change dropped by the throttle still reaches the report once the burst is over', () => {
    const { rec, last, count } = counts();
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
    const { rec, count } = counts();
    rec.changed();
    rec.progress.waiting = 1;
    rec.changed();
    rec.changed(true);
    const after = count();
    expect(vi.getTimerCount()).toBe(0);
    vi.runOnlyPendingTimers();
    expect(count()).toBe(after);
  });
});
