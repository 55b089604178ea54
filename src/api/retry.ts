import type { Clock } from '../clock.js';
import { ApiError, ConnectionError, TimeoutError } from './errors.js';

export const RETRYABLE_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;
/** A Retry-After longer than this is not worth blocking a batch for; the error is reported instead. */
const MAX_RETRY_AFTER_MS = 5 * 60_000;

/** Retry-After in seconds or as an HTTP date, in milliseconds from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
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

export interface RetryOptions {
  maxRetries: number;
  clock: Clock;
  signal?: AbortSignal;
  /** Whether this failure may be retried; the default is the contract's rule for idempotent-enough requests. */
  shouldRetry?: (error: unknown) => boolean;
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

export function isRetryableByDefault(error: unknown): boolean {
  if (error instanceof RetryableStatusError) return true;
  return error instanceof ConnectionError || error instanceof TimeoutError;
}

/**
 * Runs `attempt` until it succeeds, the failure is not retryable, or retries run out. Each call of
 * `attempt` must build its own request body: a consumed stream is never sent again.
 */
export async function withRetries<T>(attempt: (n: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const shouldRetry = options.shouldRetry ?? isRetryableByDefault;
  for (let n = 0; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const retryAfter = error instanceof RetryableStatusError ? error.retryAfterMs : undefined;
      if (n >= options.maxRetries || !shouldRetry(error) || (retryAfter ?? 0) > MAX_RETRY_AFTER_MS) {
        throw error instanceof RetryableStatusError ? error.cause : error;
      }
      const delayMs = retryAfter ?? backoffDelay(n, options.clock.random);
      options.onRetry?.(error, n + 1, delayMs);
      await options.clock.sleep(delayMs, options.signal);
    }
  }
}
