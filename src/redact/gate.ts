import { ApiError, isTokenRefused } from '../api/errors.js';

/**
 * Lets requests through one at a time until the service has answered one without refusing the
 * token; then all at once. So a refused token costs exactly one request however wide the fan-out
 * (the batch stops on that first answer), and a good token costs the latency of one request.
 *
 * An answer "counts" when it carries an HTTP status other than 401/403 (a 2xx, or a 413 for a
 * file too large: the token was accepted either way). A network failure says nothing about the
 * token, so the next request is the next pilot.
 */
export class TokenGate {
  #open = false;
  #refused: unknown;
  #tail: Promise<void> = Promise.resolve();

  /** `onRefused` is called once, synchronously, with the first refusal, before any other request can start. */
  constructor(private readonly onRefused: (error: unknown) => void = () => {}) {}

  #refuse(error: unknown): void {
    if (this.#refused) return;
    this.#refused = error;
    this.onRefused(error);
  }

  /** Runs a request in the open state, noting a refusal. */
  async #through<T>(request: () => Promise<T>): Promise<T> {
    if (this.#refused) throw new GateClosedError(this.#refused);
    try {
      return await request();
    } catch (error) {
      if (isTokenRefused(error)) this.#refuse(error);
      throw error;
    }
  }

  get isOpen(): boolean {
    return this.#open;
  }

  async run<T>(request: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.#open) return this.#through(request);
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      await previous;
      signal?.throwIfAborted();
      if (this.#refused) throw new GateClosedError(this.#refused);
      if (this.#open) {
        release();
        return await this.#through(request);
      }
      try {
        const result = await request();
        this.#open = true;
        return result;
      } catch (error) {
        if (isTokenRefused(error)) this.#refuse(error);
        else if (error instanceof ApiError && error.status !== undefined) this.#open = true;
        throw error;
      }
    } finally {
      release();
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
