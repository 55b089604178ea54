import type { Interrupt } from './engine.js';

/** Ctrl-C as a controller: the first interrupt stops starting work, the second aborts what is in flight. */
export interface InterruptController {
  readonly signals: Interrupt;
  /** Registers one interrupt; returns how many there have been. */
  interrupt(): number;
}

export function createInterruptController(): InterruptController {
  const stop = new AbortController();
  const abort = new AbortController();
  let count = 0;
  return {
    signals: { stop: stop.signal, abort: abort.signal },
    interrupt() {
      count++;
      if (count === 1) stop.abort(new Error('interrupted'));
      else abort.abort(new Error('interrupted twice'));
      return count;
    },
  };
}
