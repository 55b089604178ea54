/** The throttle's gate and window: who may start a request, and when (the policy: throttle.test.ts). */
import { getEventListeners } from 'node:events';
import { describe, expect, test } from 'vitest';
import { RequestWindow } from '../../src/api/request-window.js';
import { steppingClock } from '../helpers/stepping-clock.js';

const START = Date.parse('2026-11-22T04:12:00Z');

describe('RequestWindow', () => {
  test('a granted place leaves no listener on the batch-wide signal, and an abort still frees a waiter', async () => {
    const window = new RequestWindow(steppingClock(START), 2);
    const batch = new AbortController();
    for (let i = 0; i < 1000; i++) (await window.take(batch.signal))();
    expect(getEventListeners(batch.signal, 'abort')).toHaveLength(0);
    const held = [await window.take(batch.signal), await window.take(batch.signal)];
    const waiting = window.take(batch.signal);
    expect(getEventListeners(batch.signal, 'abort')).toHaveLength(1);
    batch.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    for (const release of held) release();
  });

  test('holds requests in flight to its size, in arrival order; a place freed twice is freed once', async () => {
    const window = new RequestWindow(steppingClock(START), 2);
    const order: string[] = [];
    const first = await window.take();
    const second = await window.take();
    const third = window.take().then((release) => {
      order.push('c');
      return release;
    });
    const fourth = window.take().then((release) => {
      order.push('d');
      return release;
    });
    await Promise.resolve();
    expect(order).toEqual([]);
    first();
    first();
    const thirdRelease = await third;
    // The second and the third hold both places: the fourth waits, however often the first is freed.
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(order).toEqual(['c']);
    thirdRelease();
    (await fourth)();
    second();
    expect(order).toEqual(['c', 'd']);
  });

  test('a closed gate lets nothing through until it opens', async () => {
    const clock = steppingClock(START);
    const window = new RequestWindow(clock, 4);
    window.closeUntil(START + 2000);
    window.closeUntil(START + 1000);
    expect(window.openAt).toBe(START + 2000);
    (await window.take())();
    expect(clock.elapsed()).toBe(2000);
  });
});
