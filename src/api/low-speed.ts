/**
 * A floor under how slowly an answer may come: a body that brings fewer than 1 KiB in a whole
 * `--timeout` fails as timed out (after curl's --speed-limit and --speed-time). undici's body timeout
 * bounds each pause only, so a service sending a byte a second held a request, and the run, for ever;
 * a first Ctrl-C, which lets requests in flight finish, could not end it either. Together the two
 * bound every answer: it ends, keeps pausing less than --timeout and bringing 1 KiB per --timeout,
 * or fails. An undici interceptor, so that every request has it, whoever reads the body and how.
 */
import type { Dispatcher } from 'undici';

/** Bytes an answer's body must bring in each --timeout. */
export const LOW_SPEED_BYTES = 1024;

/** Its `code` is read by networkError (transport.ts) as a timeout. */
export class LowSpeedError extends Error {
  readonly code = 'VREDACT_LOW_SPEED';
  constructor(bytes: number, windowMs: number) {
    const seconds = windowMs / 1000;
    super(`sent its answer too slowly: ${bytes} bytes in ${seconds.toFixed(seconds < 10 ? 1 : 0)} s`);
  }
}

class LowSpeedHandler implements Dispatcher.DispatchHandler {
  #since = 0;
  #bytes = 0;

  constructor(
    private readonly handler: Dispatcher.DispatchHandler,
    private readonly windowMs: number,
    private readonly minBytes: number,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.handler.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>): void {
    this.handler.onRequestUpgrade?.(...args);
  }

  onResponseStart(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>): void {
    this.#since = Date.now();
    this.handler.onResponseStart?.(...args);
  }

  // Looked at as each chunk comes: between chunks, undici's body timeout watches.
  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const now = Date.now();
    if (now - this.#since >= this.windowMs) {
      if (this.#bytes < this.minBytes) {
        controller.abort(new LowSpeedError(this.#bytes, now - this.#since));
        return;
      }
      this.#since = now;
      this.#bytes = 0;
    }
    this.#bytes += chunk.length;
    this.handler.onResponseData?.(controller, chunk);
  }

  onResponseEnd(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseEnd']>>): void {
    this.handler.onResponseEnd?.(...args);
  }

  onResponseError(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseError']>>): void {
    this.handler.onResponseError?.(...args);
  }
}

/** The interceptor: each answer's body brings at least `minBytes` in every `windowMs`. */
export function lowSpeedLimit(
  windowMs: number,
  minBytes = LOW_SPEED_BYTES,
): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (options, handler) =>
    dispatch(options, new LowSpeedHandler(handler, windowMs, minBytes));
}
