/**
 * The longest wait a service's Retry-After is read as: every longer one (10^20 seconds, a date in the
 * year 9999) is "more than a year", which no run waits for, and stays a date a clock can show.
 */
export const LONGEST_WAIT_MS = 366 * 24 * 3600 * 1000;

/** A throttle's wait shorter than this passes unsaid: the user would not notice the pause. */
const THROTTLE_NOTICE_MS = 1000;

/** A stretch of throttling is first told once it has lasted this long: shorter, it passes as a pause. */
export const STRETCH_NOTICE_FIRST_MS = 10_000;
/** The longest gap between two lines telling one stretch: half an hour of it is ten lines, not 1,800. */
const STRETCH_NOTICE_MAX_GAP_MS = 5 * 60_000;

/**
 * Whether a throttle's wait is said as it starts. Once its stretch has been told, the stretch's own
 * lines say it, and only a wait that is a pause of its own (over STRETCH_NOTICE_FIRST_MS) is said:
 * half an hour of `Retry-After: 2` was 900 lines.
 */
export function waitIsTold(waitMs: number, stretchTold: boolean): boolean {
  return waitMs > (stretchTold ? STRETCH_NOTICE_FIRST_MS : THROTTLE_NOTICE_MS);
}

/** When a stretch told after `lastedMs` is told again: once it has doubled, at most 5 min later. */
export function nextStretchNoticeMs(lastedMs: number): number {
  return lastedMs + Math.min(lastedMs, STRETCH_NOTICE_MAX_GAP_MS);
}

/**
 * The line that tells a long stretch of throttling, whose waits may each be too short to be said
 * (`Retry-After: 1` for half an hour): how long it has lasted, and how long vredact rides it out.
 */
export function throttleStretchLine(status: number | undefined, lastedMs: number, maxWaitMs: number): string {
  const what = status === 503 ? 'unavailable (503)' : 'rate-limiting requests';
  return `the service has been ${what} for ${formatWait(lastedMs)}; still waiting, up to ${formatWait(maxWaitMs)} (--max-throttle-wait)`;
}

/**
 * The line that tells a throttle's wait as it starts, for every command alike: `waiting 10s: the
 * service is rate-limiting requests (Retry-After)`. `named`: the service said how long.
 */
export function throttleWaitLine(status: number | undefined, waitMs: number, named: boolean): string {
  const why =
    status === 503 ? 'the service is unavailable for now (503)' : 'the service is rate-limiting requests';
  return `waiting ${formatWait(waitMs)}: ${why} (${named ? 'Retry-After' : 'no Retry-After: backing off'})`;
}

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
