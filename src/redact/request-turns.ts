/**
 * The run's limit of requests to the service at once (polls, links, result downloads, listings), and
 * the one home of the rule for a request still waiting for its turn there: a stop of the batch (a
 * first interrupt, a refused token, a halt) gives it up at once, unsent (NotSentError, which the
 * callers take for the batch stopping), while the requests that have their turn go on to their end.
 * Before, a queue of p-limit ran whatever was queued, so a first Ctrl-C let requests start that had
 * not been sent when it came.
 */
import { NotSentError } from '../api/errors.js';

/** Runs one request when its turn comes, unless the batch has stopped by then. */
export type RequestTurns = <T>(run: () => Promise<T>) => Promise<T>;

/** Why a request waiting for its turn was not sent. */
const NOT_SENT = 'request: not sent: the batch is stopping';

/** At most `max` requests at once; those waiting for a turn are given up at `stop`. */
export async function requestTurns(max: number, stop: AbortSignal): Promise<RequestTurns> {
  const { default: pLimit } = await import('p-limit');
  const limit = pLimit(max);
  // One listener on `stop` gives up every waiter: one listener each would make each new request
  // walk the signal's list of them all (quadratic in the requests waiting) and warn past ten.
  const waiting = new Set<() => void>();
  stop.addEventListener(
    'abort',
    () => {
      for (const giveUp of waiting) giveUp();
      waiting.clear();
    },
    { once: true },
  );
  return <T>(run: () => Promise<T>) => {
    if (stop.aborted) return Promise.reject(new NotSentError(NOT_SENT));
    return new Promise<T>((resolve, reject) => {
      const giveUp = () => reject(new NotSentError(NOT_SENT));
      waiting.add(giveUp);
      void limit(async () => {
        waiting.delete(giveUp);
        // Given up while queued: its turn is handed on at once, the request never made.
        if (stop.aborted) return;
        try {
          resolve(await run());
        } catch (error) {
          reject(error);
        }
      });
    });
  };
}
