/** The one rule for numbers the user types into a setting: digits, never what Number() also takes. */
import { parseDurationMs } from '../redact/options.js';
import { BadValueError, nearestEnd } from './bad-value.js';

/** The range of `-c`, checked in one place for flags, the environment, the config file and `config set`. */
export const CONCURRENCY_RANGE = { min: 1, max: 64 } as const;

export function parseConcurrency(text: string, what = 'concurrency'): number {
  return parseInteger(text, what, CONCURRENCY_RANGE.min, CONCURRENCY_RANGE.max);
}

/** The one rule for numbers typed by the user: digits, and for seconds a decimal fraction. */
const DIGITS = /^[0-9]+$/;
const DECIMAL = /^[0-9]+(\.[0-9]+)?$/;

/**
 * `text` as a number when it is written in digits (with a decimal fraction if `fraction`), else NaN:
 * Number() also takes "1e1", "0x10", "8.0", " 8" and "" (as 0).
 */
export function typedNumber(text: string, fraction: 'whole' | 'fraction'): number {
  return (fraction === 'whole' ? DIGITS : DECIMAL).test(text) ? Number(text) : Number.NaN;
}

export function parseInteger(text: string, what: string, min: number, max: number): number {
  const n = typedNumber(text, 'whole');
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new BadValueError(
      `${what} must be a whole number from ${min} to ${max} (got "${text}")`,
      nearestEnd(text, min, max),
    );
  }
  return n;
}

export function parseSeconds(text: string, what: string): number {
  const n = typedNumber(text, 'fraction');
  if (!Number.isFinite(n) || n <= 0)
    throw new BadValueError(
      `${what} must be a positive number of seconds, in digits (like 30 or 0.5) (got "${text}")`,
    );
  return n;
}

const MAX_THROTTLE_WAIT_MS = 7 * 24 * 3_600_000;

/** A duration like `30m`, `90s`, `2h` or plain seconds; 0 means "never wait out throttling". */
export function parseThrottleWait(text: string, what: string): number {
  const ms = parseDurationMs(text);
  if (ms === undefined || ms < 0 || ms > MAX_THROTTLE_WAIT_MS) {
    throw new BadValueError(
      `${what} must be a duration from 0 to 7d, like 30m, 90s or 2h (got "${text}")`,
      ms === undefined ? undefined : '7d',
    );
  }
  return ms;
}
