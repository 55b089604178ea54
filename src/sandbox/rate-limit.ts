/**
 * `--rate-limit <n>/<period>`: at most n API requests per token in any sliding window of `period`;
 * beyond that, 429 with `Retry-After` in whole seconds until the token's window frees a place. Users
 * rehearse a throttled batch offline with it, and the suite tests the client's throttling against it.
 */

export interface RateLimit {
  requests: number;
  periodMs: number;
}

const PERIOD_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Reads `5/1s`, `100/1m`, `10/500ms` (`/s`, `/m` mean one of the unit); undefined when not that shape. */
export function parseRateLimit(text: string): RateLimit | undefined {
  const match = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)?\s*(ms|s|m|h)\s*$/.exec(text);
  if (!match) return undefined;
  const requests = Number(match[1]);
  const periodMs = Number(match[2] ?? '1') * (PERIOD_UNITS[match[3] as string] as number);
  if (!Number.isSafeInteger(requests) || requests < 1 || !(periodMs >= 1)) return undefined;
  return { requests, periodMs };
}

/** A sliding log per token: the times of its last `requests` accepted requests. */
export class RateLimiter {
  readonly #log = new Map<string, number[]>();
  /** Requests answered 429 so far (the unit tests read it; no control endpoint shows it). */
  throttled = 0;

  constructor(
    readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts a request of `token`; the seconds to wait when it is beyond the rate, else undefined. */
  take(token: string): number | undefined {
    const now = this.now();
    const since = now - this.limit.periodMs;
    const times = (this.#log.get(token) ?? []).filter((time) => time > since);
    if (times.length >= this.limit.requests) {
      this.#log.set(token, times);
      this.throttled++;
      const frees = (times[0] as number) + this.limit.periodMs;
      return Math.max(1, Math.ceil((frees - now) / 1000));
    }
    times.push(now);
    this.#log.set(token, times);
    return undefined;
  }
}
