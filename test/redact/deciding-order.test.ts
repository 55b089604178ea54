/**
 * The order in which a run decides its inputs: a first interrupt ends it at the next turn of the
 * event loop, which it gives itself. Over 1,000,000 inputs already done, deciding takes seconds; a
 * stage that waits for each input as it comes gives no turn, and a signal waited for all of them.
 */
import { describe, expect, it } from 'vitest';
import { DecidingOrder } from '../../src/redact/deciding-order.js';
import { noPause, type PausePoint } from '../../src/redact/test-pause.js';

/** Works `ms` on the CPU, as deciding an input does (a stat, a look-up), without awaiting anything. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('DecidingOrder', () => {
  it('hands out every input when not interrupted', async () => {
    const seen: number[] = [];
    for await (const item of new DecidingOrder([1, 2, 3], new AbortController().signal, noPause))
      seen.push(item);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('ends at the first turn after an interrupt, though each input is awaited on microtasks alone', async () => {
    const items = Array.from({ length: 2_000 }, (_, i) => i);
    const stop = new AbortController();
    // A signal's handler runs in a turn of the event loop, as this does.
    setImmediate(() => stop.abort());
    let seen = 0;
    for await (const _ of new DecidingOrder(items, stop.signal, noPause)) {
      seen++;
      busy(0.1);
    }
    // 0.2 s of work in all; a turn is given every 20 ms, so the interrupt ends it within the first 200.
    expect(seen).toBeLessThan(items.length);
    expect(stop.signal.aborted).toBe(true);
  });

  it('is held at "decide" once the first input is handed out, and ends there when interrupted', async () => {
    const stop = new AbortController();
    const held: PausePoint[] = [];
    const pause = (point: PausePoint) => {
      held.push(point);
      stop.abort();
      return Promise.resolve();
    };
    const seen: string[] = [];
    for await (const item of new DecidingOrder(['first', 'second', 'third'], stop.signal, pause))
      seen.push(item);
    expect(held).toEqual(['decide']);
    expect(seen).toEqual(['first']);
  });
});
