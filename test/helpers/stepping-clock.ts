/** A clock for retry and throttle tests whose sleeps move time forward at once: waits are measured, never waited. */
import type { Clock } from '../../src/clock.js';

export function steppingClock(start: number): Clock & { elapsed: () => number } {
  let now = start;
  return {
    now: () => now,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      now += ms;
    },
    random: () => 0.5,
    elapsed: () => now - start,
  };
}
