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
 *   `maxWaitMs` of continuous throttling, or at once when the service asks for a longer wait;
 * - a batch rides out an outage the same way (rideOutOutages): once the service has answered, a
 *   request that cannot connect to it closes the gate with the same backoff and the window at 1, so
 *   one upload at a time probes it, without using up any file's retries. Past the batch's limit,
 *   every request fails at once with ServiceUnreachableError, which halts the batch with the files
 *   not sent still pending, rather than failing each of them after its own retries (a night of
 *   hundreds of thousands of files retried against a service that is down).
 *
 * This decides; the gate and the window themselves, which let requests through, are request-window.ts.
 */
import type { Clock } from '../clock.js';
import { type ApiError, ServiceUnreachableError, ThrottleGivenUpError } from './errors.js';
import { type Release, RequestWindow } from './request-window.js';
import { formatWait, LONGEST_WAIT_MS, nextStretchNoticeMs, STRETCH_NOTICE_FIRST_MS } from './wait-text.js';

export interface ThrottleOptions {
  clock: Clock;
  /** The most requests in flight at once (the user's `-c`). */
  maxConcurrency: number;
  /** How long continuous throttling is ridden out before requests fail. */
  maxWaitMs: number;
}

/** What a batch is told of an outage it rides out. */
export interface OutageRiding {
  /** How long the service may stay unreachable before every request fails. */
  maxWaitMs: number;
  /** The first request that could not connect after the service had answered. */
  onBegan?: (error: unknown) => void;
  /** The service answered again after `lastedMs` of outage. */
  onEnded?: (lastedMs: number) => void;
}

/**
 * What to do with a throttle answer (or an outage): try again, or fail with `refuse`'s error.
 * `waitStartedMs`: this answer closed an open gate, for that long (answers met while it was closed
 * already start no wait of their own); `stretchTold`: a line has told its stretch already.
 * `throttledForMs`: the stretch has lasted that long, and is due to be told (wait-text.ts says when).
 */
export type ThrottleDecision =
  | { retry: true; waitStartedMs?: number; stretchTold?: boolean; throttledForMs?: number }
  | { retry: false; refuse: (what: string) => ApiError };

const BACKOFF_BASE_MS = 1000;
const BACKOFF_CAP_MS = 30_000;

export class Throttle {
  readonly #options: ThrottleOptions;
  /** Who may start a request, and when: what this class decides, the window enforces. */
  readonly #window: RequestWindow;
  /** When the current stretch of throttling began (no success since); undefined when not throttled. */
  #since: number | undefined;
  /** Throttle answers since the last success, for the backoff when the service names no wait. */
  #strikes = 0;
  /** How long the current stretch must have lasted before it is told again. */
  #stretchNoticeAtMs = STRETCH_NOTICE_FIRST_MS;
  /** Set when the service asked for a wait beyond maxWaitMs (or an outage outlasted its limit): every request fails at once until then. */
  #refusedUntil: { at: number; refuse: (what: string) => ApiError } | undefined;
  #outage: OutageRiding | undefined;
  /** Whether any request had an answer from the service (an error status too): it exists at this URL. */
  #reached = false;
  /** When the current outage began (no answer since); undefined while the service answers. */
  #unreachableSince: number | undefined;

  constructor(options: ThrottleOptions) {
    this.#options = options;
    this.#window = new RequestWindow(options.clock, Math.max(1, options.maxConcurrency));
  }

  /** How long continuous throttling is ridden out (for the lines that tell it). */
  get maxWaitMs(): number {
    return this.#options.maxWaitMs;
  }

  /** The current window (for tests and the verbose log). */
  get window(): number {
    return Math.floor(this.#window.size);
  }

  /**
   * Waits until the gate is open and the window has room; the returned function frees the slot.
   * Throws the standing refusal when the service asked for a wait longer than the client rides out.
   */
  async acquire(what: string, signal?: AbortSignal): Promise<Release> {
    // An abort listener added to a signal already aborted is never called: the wait would not end.
    signal?.throwIfAborted();
    this.#checkRefusal(what);
    const release = await this.#window.take(signal);
    try {
      this.#checkRefusal(what);
    } catch (error) {
      release();
      throw error;
    }
    return release;
  }

  /**
   * Waits until the gate is open, without taking a slot of the window: for a request that others
   * wait on (a job's listing feeding its downloads), which would hold their turn while they hold it
   * back. Its throttle answers still close the gate, and it still fails only as acquire's do.
   */
  async passGate(what: string, signal?: AbortSignal): Promise<Release> {
    for (;;) {
      signal?.throwIfAborted();
      this.#checkRefusal(what);
      const wait = this.#window.openAt - this.#options.clock.now();
      if (wait <= 0) return () => {};
      await this.#options.clock.sleep(wait, signal);
    }
  }

  /** A request got an answer that is not a throttle (an error status too): the stretch ends. */
  onAnswered(): void {
    this.#since = undefined;
    this.#strikes = 0;
    this.#stretchNoticeAtMs = STRETCH_NOTICE_FIRST_MS;
    this.#reached = true;
    const outageSince = this.#unreachableSince;
    if (outageSince === undefined) return;
    this.#unreachableSince = undefined;
    this.#outage?.onEnded?.(this.#options.clock.now() - outageSince);
  }

  /** From now on, connect failures after the service has answered are ridden out (see the top). */
  rideOutOutages(riding: OutageRiding): void {
    this.#outage = riding;
  }

  /**
   * The service's answer has begun (its status and headers came), whatever comes of it: something at
   * its URL speaks HTTP. A body that then fails is not a service that never answered.
   */
  onHeard(): void {
    this.#reached = true;
  }

  /** A failure with no answer, before the service ever answered: not there at all (see retry.ts). */
  get neverReached(): boolean {
    return this.#outage !== undefined && !this.#reached;
  }

  /**
   * A request could not connect to the service. Undefined when it is an ordinary failure, retried as
   * such: outages are not ridden out by this client, or the service never answered (a wrong URL
   * fails after a file's retries, not after the outage limit).
   */
  onUnreachable(error: unknown): ThrottleDecision | undefined {
    const outage = this.#outage;
    if (outage === undefined || !this.#reached) return undefined;
    const now = this.#options.clock.now();
    if (this.#unreachableSince === undefined) {
      this.#unreachableSince = now;
      outage.onBegan?.(error);
    }
    const since = this.#unreachableSince;
    this.#strikes++;
    this.#window.size = 1;
    const waitMs = this.#backoffMs();
    if (now + waitMs - since > outage.maxWaitMs) {
      const reason = `the service could not be reached for ${formatWait(now - since)} (--max-outage-wait ${formatWait(outage.maxWaitMs)})`;
      const refuse = (what: string) => outageError(what, reason);
      this.#refusedUntil = { at: Number.POSITIVE_INFINITY, refuse };
      return { retry: false, refuse };
    }
    this.#window.closeUntil(now + waitMs);
    return { retry: true };
  }

  /** A request succeeded: the stretch ends and the window grows back by about one per window. */
  onSuccess(): void {
    this.onAnswered();
    const window = this.#window;
    window.size = Math.min(this.#options.maxConcurrency, window.size + 1 / Math.floor(window.size));
    window.pump();
  }

  /**
   * A throttle answer: closes the gate, cuts the window, and says whether the request may try again.
   * `retryAfterMs` is the service's wish, undefined when it named none.
   */
  onThrottle(retryAfterMs: number | undefined): ThrottleDecision {
    const now = this.#options.clock.now();
    this.#since ??= now;
    this.#strikes++;
    this.#window.size = Math.max(1, Math.floor(this.#window.size / 2));
    this.#reached = true;
    const { maxWaitMs } = this.#options;
    if (retryAfterMs !== undefined && retryAfterMs > maxWaitMs) {
      const until = new Date(now + retryAfterMs);
      const when = retryAfterMs < LONGEST_WAIT_MS ? ` (until ${formatUtc(until)})` : '';
      const reason = `the service asked to wait ${formatWait(retryAfterMs)}${when}; try again then`;
      const refuse = (what: string) => new ThrottleGivenUpError(what, reason);
      this.#refusedUntil = { at: until.getTime(), refuse };
      return { retry: false, refuse };
    }
    // A wish of no wait at all (`Retry-After: 0`, a date already past on a skewed clock) is no wait
    // named: honoured as it is, it sent a request as fast as the service answered, for as long as
    // it throttled (40 a second, up to --max-throttle-wait).
    const waitMs = (retryAfterMs || undefined) ?? this.#backoffMs();
    if (now + waitMs - this.#since > maxWaitMs) {
      const reason = `the service has been throttling requests for ${formatWait(now - this.#since)} (--max-throttle-wait ${formatWait(maxWaitMs)}); try again later, or raise --max-throttle-wait`;
      return { retry: false, refuse: (what) => new ThrottleGivenUpError(what, reason) };
    }
    const wasOpen = this.#window.openAt <= now;
    this.#window.closeUntil(now + waitMs);
    const stretchTold = this.#stretchNoticeAtMs > STRETCH_NOTICE_FIRST_MS;
    const decision = wasOpen
      ? { retry: true as const, waitStartedMs: waitMs, ...(stretchTold && { stretchTold }) }
      : { retry: true as const };
    const lastedMs = now - this.#since;
    if (lastedMs < this.#stretchNoticeAtMs) return decision;
    this.#stretchNoticeAtMs = nextStretchNoticeMs(lastedMs);
    return { ...decision, throttledForMs: lastedMs };
  }

  /** The gate's wait when the service named none: 1 s doubling to 30 s per strike, jittered. */
  #backoffMs(): number {
    return (
      Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (this.#strikes - 1)) *
      (0.5 + this.#options.clock.random() / 2)
    );
  }

  #checkRefusal(what: string): void {
    const refusal = this.#refusedUntil;
    if (!refusal) return;
    if (this.#options.clock.now() >= refusal.at) {
      this.#refusedUntil = undefined;
      return;
    }
    throw refusal.refuse(what);
  }
}

/** The failure of every request once an outage has outlasted the batch's limit. */
export function outageError(what: string, reason: string): ServiceUnreachableError {
  return new ServiceUnreachableError(
    `${what}: ${reason}`,
    'run the same command again when the service is back; --max-outage-wait rides out longer outages',
  );
}

function formatUtc(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
