import { describe, expect, it } from 'vitest';
import { BoundedQueue, forEachConcurrently } from '../../src/redact/queue.js';

describe('bounded queue', () => {
  it('makes a producer wait while it is full, and ends its consumers when closed', async () => {
    const queue = new BoundedQueue<number>(2);
    let pushed = 0;
    const producing = (async () => {
      for (let i = 0; i < 10; i++) {
        await queue.push(i);
        pushed++;
      }
      queue.close();
    })();
    await new Promise((resolve) => setImmediate(resolve));
    expect(pushed).toBe(2);
    const seen: number[] = [];
    for await (const item of queue) seen.push(item);
    await producing;
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});

describe('worker pool', () => {
  it('runs at most n at once, pulling items only as workers free up, and drains on failure', async () => {
    let running = 0;
    let peak = 0;
    let pulled = 0;
    function* items() {
      for (let i = 0; i < 50; i++) {
        pulled++;
        yield i;
      }
    }
    const done: number[] = [];
    await expect(
      forEachConcurrently(items(), 3, async (i) => {
        running++;
        peak = Math.max(peak, running);
        expect(pulled - done.length).toBeLessThanOrEqual(3);
        await new Promise((resolve) => setTimeout(resolve, 1));
        running--;
        done.push(i);
        if (i === 10) throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(peak).toBe(3);
    expect(done).toHaveLength(50);
  });

  it('gives timers a turn while items that are already there are drained, however many', async () => {
    const queue = new BoundedQueue<number>(100_000);
    const total = 50_000;
    for (let i = 0; i < total; i++) await queue.push(i);
    queue.close();
    let done = 0;
    let doneWhenTimerRan = -1;
    setTimeout(() => (doneWhenTimerRan = done), 0);
    // Each item is synchronous work of 2 µs: at least 100 ms in all, with no await of anything pending.
    await forEachConcurrently(queue, 4, async () => {
      const until = performance.now() + 0.002;
      while (performance.now() < until);
      done++;
    });
    expect(done).toBe(total);
    expect(doneWhenTimerRan).toBeGreaterThanOrEqual(0);
    expect(doneWhenTimerRan).toBeLessThan(total);
  });
});
