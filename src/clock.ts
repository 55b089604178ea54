import { setTimeout as delay } from 'node:timers/promises';

/** Time and chance, injected so that retry and polling logic can be tested without waiting. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  random(): number;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : undefined),
  random: () => Math.random(),
};
