import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { fullCollection } from '../src/full-gc.js';

function unreachable(): WeakRef<object> {
  return new WeakRef({ payload: new Array<number>(1000).fill(7) });
}

describe('fullCollection', () => {
  it('collects an object nothing refers to any more', async () => {
    const ref = unreachable();
    // A WeakRef's target is kept until the end of the job that made it.
    await nextTurn();
    expect(fullCollection()).toBe(true);
    expect(ref.deref()).toBeUndefined();
  });

  it('keeps what is still referred to', async () => {
    const kept = { payload: [1, 2, 3] };
    const ref = new WeakRef(kept);
    await nextTurn();
    expect(fullCollection()).toBe(true);
    expect(ref.deref()).toBe(kept);
  });
});
