/**
 * The longest wait a service's Retry-After is read as: every longer one (10^20 seconds, a date in the
 * year 9999) is "more than a year", which no run waits for, and stays a date a clock can show.
 */
export const LONGEST_WAIT_MS = 366 * 24 * 3600 * 1000;

/** A wait as people say it: `45s`, `2m 30s`, `1h 0m`, `more than a year`. */
export function formatWait(ms: number): string {
  if (ms >= LONGEST_WAIT_MS) return 'more than a year';
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return s > 0 ? `${m}m ${s}s` : `${m}m`;
  return `${s}s`;
}
