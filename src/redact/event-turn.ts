/**
 * Turns of the event loop during long stretches of work. A loop that awaits only settled promises
 * (a re-run skipping files already done, a listing's lstat calls, the plan) runs on microtasks and
 * never lets timers, signals or I/O in: over 1,000,000 done files a re-run went 5.8 s without a turn,
 * in which Ctrl-C, the live line and `--stats` all waited. Such loops ask here, item by item, whether
 * a turn is due, and give one when it is.
 */

/** The longest a loop holds the event loop: a person's Ctrl-C is answered about this fast. */
const TURN_EVERY_MS = 20;

let lastTurn = performance.now();

/** Whether 20 ms have passed since the last turn given here. */
export function turnDue(): boolean {
  return performance.now() - lastTurn >= TURN_EVERY_MS;
}

/**
 * The value of `work`, or undefined when it ended by `stop` (a first interrupt in a phase that takes
 * it): the caller then decides nothing on a part of the work. Any other failure is thrown as it is.
 */
export async function unlessStopped<T>(work: Promise<T>, stop: AbortSignal): Promise<T | undefined> {
  try {
    return await work;
  } catch (error) {
    if (stop.aborted) return undefined;
    throw error;
  }
}

/**
 * Lets the event loop run once (timers, signals, I/O) before the work goes on; rejects with `stop`'s
 * reason when it was aborted by then (an interrupt heard in that turn ends a loop that takes it).
 */
export function giveTurn(stop?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) =>
    setImmediate(() => {
      lastTurn = performance.now();
      if (stop?.aborted) reject(stop.reason as Error);
      else resolve();
    }),
  );
}
