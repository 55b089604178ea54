import { isTokenRefused } from '../api/errors.js';

/**
 * Closes the batch to new requests on the first refused token (401/403), and tells `onRefused` at
 * once, so that the batch aborts every request in flight.
 *
 * Requests are not held back until the token is proven. A pilot request would cost every run one
 * whole round trip before the fan-out (with a synchronous redaction, the time the service takes to
 * process one file), to save a refused token a few requests: at most `-c` are in flight when the
 * refusal comes, and they are aborted then.
 */
export class TokenGate {
  #refused: unknown;

  /** `onRefused` is called once, synchronously, with the first refusal. */
  constructor(private readonly onRefused: (error: unknown) => void = () => {}) {}

  get refused(): boolean {
    return this.#refused !== undefined;
  }

  async run<T>(request: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.#refused !== undefined) throw new GateClosedError(this.#refused);
    signal?.throwIfAborted();
    try {
      return await request();
    } catch (error) {
      if (isTokenRefused(error) && this.#refused === undefined) {
        this.#refused = error;
        this.onRefused(error);
      }
      throw error;
    }
  }
}

/** A request that was not made because the token had just been refused. */
export class GateClosedError extends Error {
  override name = 'GateClosedError';
  constructor(readonly refusal: unknown) {
    super('not sent: the service refused the token');
  }
}
