/**
 * Riding out rate limits, for the whole client (so for a whole batch), after the adaptive retry mode
 * of the AWS SDKs and the client-side throttling of Google's SRE book:
 *
 * - one gate: a throttle answer (429, or 503 with Retry-After) closes it until the wait the service
 *   asked for (or a growing backoff when it named none); every request waits for it to open;
 * - a window of requests in flight: halved on each throttle, grown back by about one per window of
 *   successes, never above the configured concurrency. After a throttle the window is 1, so a single
 *   request probes the service when the gate opens, rather than every waiting file at once;
 * - throttling is measured in time, not attempts: a request fails for throttling only after
 *   `maxWaitMs` of continuous throttling, or at once when the service asks for a longer wait.
 */
import type { Clock } from '../clock.js';
import { ExitCode } from '../errors.js';
import { RateLimitError } from './errors.js';
import { formatWait, LONGEST_WAIT_MS } from './wait-text.js';

export interface ThrottleOptions {
  clock: Clock;
  /** The most requests in flight at once (the user's `-c`). */
  maxConcurrency: number;
  /** How long continuous throttling is ridden out before requests fail. */
  maxWaitMs: number;
}

/** What to do with a throttle answer. */
export type ThrottleDecision = { retry: true } | { retry: false; reason: string };

const BACKOFF_BASE_MS = 1000;
const BACKOFF_CAP_MS = 30_000;

type Release = () => void;

interface Waiter {
  grant: (release: Release) => void;
}

export class Throttle {
  readonly #options: ThrottleOptions;
  #limit: number;
  #inFlight = 0;
  readonly #queue: Waiter[] = [];
  /** The gate is closed until this time. */
  #openAt = 0;
  #timer: AbortController | undefined;
  /** When the current stretch of throttling began (no success since); undefined when not throttled. */
  #since: number | undefined;
  /** Throttle answers since the last success, for the backoff when the service names no wait. */
  #strikes = 0;
  /** Set when the service asked for a wait beyond maxWaitMs: every request fails at once until then. */
  #refusedUntil: { at: number; reason: string } | undefined;

  constructor(options: ThrottleOptions) {
    this.#options = options;
    this.#limit = Math.max(1, options.maxConcurrency);
  }

  /** The current window (for tests and the verbose log). */
  get window(): number {
    return Math.floor(this.#limit);
  }

  /**
   * Waits until the gate is open and the window has room; the returned function frees the slot.
   * Throws the standing refusal when the service asked for a wait longer than the client rides out.
   */
  async acquire(what: string, signal?: AbortSignal): Promise<Release> {
    this.#checkRefusal(what);
    const release = await new Promise<Release>((resolve, reject) => {
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
      this.#pump();
    });
    try {
      this.#checkRefusal(what);
    } catch (error) {
      release();
      throw error;
    }
    return release;
  }

  /** A request got an answer that is not a throttle (an error status too): the stretch ends. */
  onAnswered(): void {
    this.#since = undefined;
    this.#strikes = 0;
  }

  /** A request succeeded: the stretch ends and the window grows back by about one per window. */
  onSuccess(): void {
    this.onAnswered();
    this.#limit = Math.min(this.#options.maxConcurrency, this.#limit + 1 / Math.floor(this.#limit));
    this.#pump();
  }

  /**
   * A throttle answer: closes the gate, cuts the window, and says whether the request may try again.
   * `retryAfterMs` is the service's wish, undefined when it named none.
   */
  onThrottle(retryAfterMs: number | undefined): ThrottleDecision {
    const now = this.#options.clock.now();
    this.#since ??= now;
    this.#strikes++;
    this.#limit = Math.max(1, Math.floor(this.#limit / 2));
    const { maxWaitMs } = this.#options;
    if (retryAfterMs !== undefined && retryAfterMs > maxWaitMs) {
      const until = new Date(now + retryAfterMs);
      const when = retryAfterMs < LONGEST_WAIT_MS ? ` (until ${formatUtc(until)})` : '';
      const reason = `the service asked to wait ${formatWait(retryAfterMs)}${when}; try again then`;
      this.#refusedUntil = { at: until.getTime(), reason };
      return { retry: false, reason };
    }
    // A wish of no wait at all (`Retry-After: 0`, a date already past on a skewed clock) is no wait
    // named: honoured as it is, it sent a request as fast as the service answered, for as long as
    // it throttled (40 a second, up to --max-throttle-wait).
    const waitMs =
      (retryAfterMs || undefined) ??
      Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (this.#strikes - 1)) *
        (0.5 + this.#options.clock.random() / 2);
    if (now + waitMs - this.#since > maxWaitMs) {
      return {
        retry: false,
        reason: `the service has been throttling requests for ${formatWait(now - this.#since)} (--max-throttle-wait ${formatWait(maxWaitMs)}); try again later, or raise --max-throttle-wait`,
      };
    }
    this.#openAt = Math.max(this.#openAt, now + waitMs);
    return { retry: true };
  }

  #checkRefusal(what: string): void {
    const refusal = this.#refusedUntil;
    if (!refusal) return;
    if (this.#options.clock.now() >= refusal.at) {
      this.#refusedUntil = undefined;
      return;
    }
    throw throttledError(what, refusal.reason);
  }

  #pump(): void {
    const wait = this.#openAt - this.#options.clock.now();
    if (wait > 0) {
      if (this.#timer || this.#queue.length === 0) return;
      // One timer for the whole queue; it pumps again when the gate opens.
      const timer = new AbortController();
      this.#timer = timer;
      this.#options.clock.sleep(wait, timer.signal).then(
        () => {
          this.#timer = undefined;
          this.#pump();
        },
        () => {
          if (this.#timer === timer) this.#timer = undefined;
        },
      );
      return;
    }
    while (this.#queue.length > 0 && this.#inFlight < Math.floor(this.#limit)) {
      const waiter = this.#queue.shift() as Waiter;
      this.#inFlight++;
      let released = false;
      waiter.grant(() => {
        if (released) return;
        released = true;
        this.#inFlight--;
        this.#pump();
      });
    }
  }
}

/** A request that failed for throttling (status 429 whatever the service's answer was). */
export function throttledError(what: string, reason: string): RateLimitError {
  return new RateLimitError(
    `${what}: ${reason}`,
    429,
    undefined,
    ExitCode.partial,
    'lower -c, or run again later',
  );
}

function formatUtc(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
