/**
 * The inputs as the run decides them, ending at a first interrupt or at a stop of the batch (a refused
 * token, a full disk, a host that is not the service: every input after it was decided only to be
 * reported `pending … (not sent)`). A re-run decides 1,000,000 inputs
 * already done in seconds of stats and look-ups; before, a first Ctrl-C there waited until the last of
 * them was decided (skipped, or reported pending), about as long as an uninterrupted re-run. Now the
 * inputs not handed out by then are left undecided: no outcome, no journal line, counted in the
 * summary (report.ts), and the next run decides them.
 */
import { giveTurn, turnDue } from './event-turn.js';
import type { Pause } from './test-pause.js';

export class DecidingOrder<T> implements AsyncIterable<T> {
  constructor(
    private readonly items: Iterable<T>,
    /** A first interrupt or a stop of the batch: no input is handed out after it. */
    private readonly stop: AbortSignal,
    private readonly pause: Pause,
  ) {}

  [Symbol.asyncIterator](): AsyncIterator<T> {
    const iterator = this.items[Symbol.iterator]();
    let given = 0;
    const next = (): IteratorResult<T> => {
      // Checked for each input, at no cost: the signal changes only in a turn of the event loop, given
      // below every 20 ms, so this ends the deciding at the first turn after the interrupt.
      if (this.stop.aborted) return { done: true, value: undefined };
      const result = iterator.next();
      if (!result.done) given++;
      return result;
    };
    return {
      next: () => {
        // Tests only: held once the first input is handed out, so that its upload can be in flight
        // when the interrupt comes; a no-op otherwise.
        if (given === 1) return this.pause('decide').then(next);
        // The turns are given here, not left to the queues after this stage: one that hands each
        // input straight to a stage already waiting for it gives none.
        if (turnDue()) return giveTurn().then(next);
        return Promise.resolve(next());
      },
    };
  }
}
