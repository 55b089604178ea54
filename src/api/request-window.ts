/**
 * The throttle's gate and window (throttle.ts): requests wait in one queue, in order, until the gate
 * is open and fewer than the window's size are in flight. When the gate closes and how large the
 * window is are the throttle's to decide; this only lets requests through accordingly.
 */
import type { Clock } from '../clock.js';

/** Frees a place in the window; a second call does nothing. */
export type Release = () => void;

interface Waiter {
  grant: (release: Release) => void;
}

export class RequestWindow {
  /** Requests in flight at most: fractional while it grows back, floored where it counts. */
  size: number;
  #inFlight = 0;
  readonly #queue: Waiter[] = [];
  /** The gate is closed until this time. */
  #openAt = 0;
  #timer: AbortController | undefined;

  constructor(
    private readonly clock: Clock,
    size: number,
  ) {
    this.size = size;
  }

  /** When the gate opens (a time past: it is open). */
  get openAt(): number {
    return this.#openAt;
  }

  /** Closes the gate until `at`, unless it is closed until later already. */
  closeUntil(at: number): void {
    this.#openAt = Math.max(this.#openAt, at);
  }

  /** Waits for the gate to open and a place in the window; rejects with `signal`'s reason. */
  take(signal?: AbortSignal): Promise<Release> {
    return new Promise<Release>((resolve, reject) => {
      const onAbort = () => {
        const index = this.#queue.indexOf(waiter);
        if (index === -1) return;
        this.#queue.splice(index, 1);
        // Nobody left to wake: the gate's timer must not keep the process alive.
        if (this.#queue.length === 0) {
          this.#timer?.abort();
          this.#timer = undefined;
        }
        reject(signal?.reason);
      };
      // The signal is the whole batch's: a listener left behind per request made each new one
      // slower to add (100,000 files took minutes) and kept every request's closure alive.
      const waiter: Waiter = {
        grant: (granted) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(granted);
        },
      };
      this.#queue.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pump();
    });
  }

  /** Lets through as many waiting requests as the gate and the window allow now. */
  pump(): void {
    const wait = this.#openAt - this.clock.now();
    if (wait > 0) {
      if (this.#timer || this.#queue.length === 0) return;
      // One timer for the whole queue; it pumps again when the gate opens.
      const timer = new AbortController();
      this.#timer = timer;
      this.clock.sleep(wait, timer.signal).then(
        () => {
          this.#timer = undefined;
          this.pump();
        },
        () => {
          if (this.#timer === timer) this.#timer = undefined;
        },
      );
      return;
    }
    while (this.#queue.length > 0 && this.#inFlight < Math.floor(this.size)) {
      const waiter = this.#queue.shift() as Waiter;
      this.#inFlight++;
      let released = false;
      waiter.grant(() => {
        if (released) return;
        released = true;
        this.#inFlight--;
        this.pump();
      });
    }
  }
}
