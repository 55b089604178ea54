import type { Clock } from '../clock.js';
import { type BaseUrlSource, neverAnsweredHint } from './base-url-hints.js';
import {
  ApiError,
  ConnectionError,
  ConnectTimeoutError,
  DroppedBeforeHeardError,
  failsEveryRequest,
  HostNotFoundError,
  NotSentError,
  ServiceUnreachableError,
  StalledError,
  TimeoutError,
  UnreadableAnswerError,
} from './errors.js';
import type { Throttle, ThrottleDecision } from './throttle.js';
import { LONGEST_WAIT_MS } from './wait-text.js';

export const RETRYABLE_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;
/** Without a throttle gate, a Retry-After longer than this is not worth blocking for; the error is reported. */
const MAX_RETRY_AFTER_MS = 5 * 60_000;
/** A connection that keeps failing for this long is worth a line on stderr while it is retried. */
export const SLOW_CONNECT_NOTICE_MS = 2000;

/**
 * Retry-After in seconds or as an HTTP date, in milliseconds from now (at most LONGEST_WAIT_MS);
 * undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.min(LONGEST_WAIT_MS, Math.round(Number(trimmed) * 1000));
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.min(LONGEST_WAIT_MS, Math.max(0, date - now));
}

/** Exponential backoff with full jitter: a random wait in [0, min(cap, base·2^attempt)). */
export function backoffDelay(
  attempt: number,
  random: () => number,
  baseMs = BASE_DELAY_MS,
  capMs = MAX_DELAY_MS,
) {
  return Math.floor(random() * Math.min(capMs, baseMs * 2 ** attempt));
}

/** An error that carries the server's wish of when to try again. */
export class RetryableStatusError extends ApiError {
  constructor(
    override readonly cause: ApiError,
    readonly retryAfterMs: number | undefined,
  ) {
    super(cause.message, cause.status, cause.serviceMessage, cause.exitCode, cause.hint);
  }
}

/** A throttle answer: 429, or 503 that names a wait. A bare 503 is an ordinary failure. */
export function isThrottleAnswer(error: unknown): error is RetryableStatusError {
  return (
    error instanceof RetryableStatusError &&
    (error.status === 429 || (error.status === 503 && error.retryAfterMs !== undefined))
  );
}

/** A connection that could not be made (refused, unreachable, timed out connecting). */
function isConnectFailure(error: unknown): error is ConnectionError | ConnectTimeoutError {
  return (error instanceof ConnectionError && error.refused) || error instanceof ConnectTimeoutError;
}

/**
 * A failure that trying again cannot mend, whatever the request's own rule says: a host name that
 * does not exist (ENOTFOUND) will not exist in a second. A resolver failing for now (EAI_AGAIN) is
 * retried; so is a lookup that fails in a batch whose service has answered (a name that resolved a
 * moment ago): the throttle rides it out as an outage before this rule is asked.
 */
function cannotBeMended(error: unknown): boolean {
  return error instanceof HostNotFoundError;
}

/**
 * The failure a request ends with when it is not tried again. For a batch whose service has never
 * answered in HTTP (see Throttle.neverReached), a failure with no answer is the whole batch's: a
 * connection that could not be made, and also one that took the request and then gave no HTTP
 * answer (a port that swallows uploads and never answers, or answers in another protocol). Each of
 * those took an upload whole, and a batch that went on gave every recording to it. One that closed
 * or reset the connection is told apart (DroppedBeforeHeardError): the network may only have
 * blinked, which the batch, not this layer, can look into.
 */
function finalError(error: unknown, options: RetryOptions): unknown {
  const final = error instanceof RetryableStatusError ? error.cause : error;
  const whole = options.toService === true && options.throttle?.neverReached === true;
  if (!whole || final instanceof ServiceUnreachableError) return final;
  if (isConnectFailure(final)) return new ServiceUnreachableError(final.message, final.hint);
  if (final instanceof ConnectionError || final instanceof TimeoutError) {
    const message = `${final.message}; nothing at the base URL has answered in HTTP this run`;
    if (final instanceof UnreadableAnswerError)
      return new ServiceUnreachableError(message, final.hint, false);
    const hint = neverAnsweredHint(options.baseUrlSource);
    // Closed or reset with no answer: the batch may look whether the network only blinked.
    if (final instanceof ConnectionError) return new DroppedBeforeHeardError(message, hint, final);
    return new ServiceUnreachableError(message, hint, false);
  }
  return final;
}

export interface RetryOptions {
  /** Where the service's URL came from, which the hint of a service that never answered names. */
  baseUrlSource?: BaseUrlSource;
  /** Retries of failures other than throttling. */
  maxRetries: number;
  clock: Clock;
  signal?: AbortSignal | undefined;
  /** Whether this failure may be retried; the default is the contract's rule for idempotent-enough requests. */
  shouldRetry?: (error: unknown) => boolean;
  /**
   * Said before each retry: `delayMs` is the backoff's wait (0 is a wait like any other, full jitter
   * draws it), undefined where the request waits at the throttle's gate instead.
   */
  onRetry?: (error: unknown, attempt: number, delayMs: number | undefined) => void;
  /**
   * The client's shared gate and window: every attempt waits for it, and throttle answers are ridden
   * out through it without using up retries. Without it, Retry-After is honoured per request.
   */
  throttle?: Throttle | undefined;
  /**
   * False: the request waits for the gate but takes no slot of the window (see Throttle.passGate);
   * its throttle answers are ridden out all the same.
   */
  holdsSlot?: boolean;
  /**
   * Aborts a wait for the gate or between attempts, never an attempt under way: the request then
   * fails with NotSentError. Aborted whenever `signal` is (a batch's first Ctrl-C, or its halt).
   */
  stopWaiting?: AbortSignal | undefined;
  /**
   * Whether a connect failure of this request tells of the service itself (the throttle rides out
   * its outages): not for a signed URL, whose host may be another.
   */
  toService?: boolean;
  /** What the request is, for messages ("listing jobs"). */
  what?: string;
  /**
   * A throttle answer of this request closed the gate for `waitMs` (a wait starts for every request);
   * `stretchTold`: its stretch of throttling has been told already.
   */
  onThrottleWait?: (error: RetryableStatusError, waitMs: number, stretchTold: boolean) => void;
  /** Throttling has gone on, without an answer between, for `lastedMs`: due to be told (Throttle says when). */
  onThrottleStretch?: (error: RetryableStatusError, lastedMs: number) => void;
  /** Called once per request when connecting has failed for more than SLOW_CONNECT_NOTICE_MS and is retried. */
  onSlowConnect?: (error: unknown) => void;
}

export function isRetryableByDefault(error: unknown): boolean {
  if (error instanceof RetryableStatusError) return true;
  // The same host answers the same way again.
  if (error instanceof UnreadableAnswerError) return false;
  return error instanceof ConnectionError || error instanceof TimeoutError;
}

/**
 * A failure that may pass: one the retry rule retries, also once the retries have run out, when the
 * last answer's own error is thrown (a 500 as an ApiError, no longer a RetryableStatusError). Not
 * what the run gave up on (failsEveryRequest: a throttle past --max-throttle-wait is a 429, an outage
 * past its limit a connection error): every later request of the run fails at once with it.
 */
export function failsForAMoment(error: unknown): boolean {
  if (failsEveryRequest(error)) return false;
  return (
    isRetryableByDefault(error) ||
    (error instanceof ApiError && error.status !== undefined && RETRYABLE_STATUSES.has(error.status))
  );
}

/**
 * Runs `attempt` until it succeeds, the failure is not retryable, or retries run out (for an answer
 * that stalls, after one retry: StalledError says why). Each call of
 * `attempt` must build its own request body: a consumed stream is never sent again.
 */
export async function withRetries<T>(attempt: (n: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const shouldRetry = options.shouldRetry ?? isRetryableByDefault;
  const { throttle, clock } = options;
  const what = options.what ?? 'request';
  let failures = 0;
  let stalled = false;
  let connectFailingSince: number | undefined;
  let noticed = false;
  const waitSignal = options.stopWaiting ?? options.signal;
  for (let n = 0; ; n++) {
    const release = throttle
      ? await waiting(options, () =>
          options.holdsSlot === false
            ? throttle.passGate(what, waitSignal)
            : throttle.acquire(what, waitSignal),
        )
      : () => {};
    let error: unknown;
    let throttled: ThrottleDecision | undefined;
    let outage: ThrottleDecision | undefined;
    try {
      const result = await attempt(n);
      release();
      throttle?.onSuccess();
      return result;
    } catch (caught) {
      error = caught;
      // A throttle answer closes the gate before its slot is freed: freed first, the slot went at
      // once to a waiting request, past the gate this answer closes (two requests per Retry-After).
      if (throttle && !options.signal?.aborted && isThrottleAnswer(error) && shouldRetry(error)) {
        throttled = throttle.onThrottle(error.retryAfterMs);
      } else if (
        throttle &&
        options.toService &&
        !options.signal?.aborted &&
        isConnectFailure(error) &&
        shouldRetry(error)
      ) {
        outage = throttle.onUnreachable(error);
      }
      release();
    }
    if (options.signal?.aborted) throw error;
    if (outage) {
      if (!outage.retry) throw outage.refuse(what);
      options.onRetry?.(error, n + 1, undefined);
      continue;
    }
    if (throttled && isThrottleAnswer(error)) {
      const decision = throttled;
      if (!decision.retry) throw decision.refuse(what);
      if (decision.waitStartedMs !== undefined)
        options.onThrottleWait?.(error, decision.waitStartedMs, decision.stretchTold === true);
      if (decision.throttledForMs !== undefined) options.onThrottleStretch?.(error, decision.throttledForMs);
      options.onRetry?.(error, n + 1, undefined);
      continue;
    }
    if (throttle && error instanceof ApiError && error.status !== undefined) throttle.onAnswered();
    // Stalled again: each further try would wait a whole --timeout more for a host that stalls.
    if (error instanceof StalledError && stalled) throw finalError(stalledAgain(error), options);
    if (error instanceof StalledError) stalled = true;
    const retryAfter = error instanceof RetryableStatusError ? error.retryAfterMs : undefined;
    if (
      failures >= options.maxRetries ||
      !shouldRetry(error) ||
      cannotBeMended(error) ||
      (retryAfter ?? 0) > MAX_RETRY_AFTER_MS
    ) {
      throw finalError(error, options);
    }
    const delayMs = retryAfter ?? backoffDelay(failures, clock.random);
    if (isConnectFailure(error)) {
      connectFailingSince ??= clock.now();
      // Said before the wait that takes the retrying past the mark, so the line comes while it matters.
      if (!noticed && clock.now() + delayMs - connectFailingSince >= SLOW_CONNECT_NOTICE_MS) {
        noticed = true;
        options.onSlowConnect?.(error);
      }
    } else {
      connectFailingSince = undefined;
    }
    failures++;
    options.onRetry?.(error, failures, delayMs);
    await waiting(options, () => clock.sleep(delayMs, waitSignal));
  }
}

/** A request's second stall, saying it was the second: why it was not tried again. */
function stalledAgain(error: StalledError): StalledError {
  return new StalledError(
    `${error.message}, twice`,
    error.status,
    error.serviceMessage,
    error.exitCode,
    error.hint,
  );
}

/** A wait of `options`' request; stopped by `stopWaiting` alone, it becomes NotSentError. */
async function waiting<T>(options: RetryOptions, wait: () => Promise<T>): Promise<T> {
  try {
    return await wait();
  } catch (error) {
    if (options.stopWaiting?.aborted && !options.signal?.aborted) {
      throw new NotSentError(`${options.what ?? 'request'}: not sent: the batch is stopping`);
    }
    throw error;
  }
}
