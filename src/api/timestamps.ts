/** The service's timestamps (the interface's `date-time`), read strictly. */

/**
 * An RFC 3339 date-time (the interface's `date-time`), its seconds and zone optional. Only such text
 * is read as a time: Date.parse reads nearly anything, `7` as July 2001 and `job 5` as May 2001.
 */
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}(?::\d{2})?)(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/**
 * Whether `day` is one a calendar has and `time` an hour of it: Date.parse rolls the rest over, so
 * 2026-02-30 named 2026-03-02 and 24:00 the next day's midnight.
 */
function onTheCalendar(day: string, time: string): boolean {
  const midnight = Date.parse(`${day}T00:00:00Z`);
  return Number.isFinite(midnight) && new Date(midnight).toISOString().slice(0, 10) === day && time < '24';
}

/** The instant a service's date-time names, in ms; one without a zone is read as UTC. */
export function timestampMs(text: string): number | undefined {
  const match = readDateTime(text);
  if (!match) return undefined;
  const [, day = '', time = '', fraction = '', zone = 'Z'] = match;
  if (!onTheCalendar(day, time)) return undefined;
  const ms = Date.parse(
    `${day}T${time}${fraction}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`,
  );
  return Number.isFinite(ms) ? ms : undefined;
}

/** The parts of an RFC 3339 date-time: day, time, fraction, zone; undefined for other text. */
export function readDateTime(text: string): RegExpExecArray | undefined {
  return DATE_TIME.exec(text.trim()) ?? undefined;
}

/** An epoch number: whole or with a fraction, as the service wrote its digits (schemas.ts). */
const EPOCH = /^\d{1,16}(\.\d+)?$/;
/**
 * Below this an epoch counts seconds, from it milliseconds: 1e11 seconds is the year 5138, 1e11
 * milliseconds March 1973, before any job. So 1732166043 and 1732166043000 name one instant.
 */
export const EPOCH_MS_FROM = 1e11;
/** The last instant a Date can hold (±8.64e15 ms): past it an epoch names no time. */
const LAST_MS = 8.64e15;
/** 2000-01-01: an epoch before it is no job's time (`7`, `0`), and is shown as it came. */
const FIRST_MS = Date.UTC(2000, 0, 1);

/**
 * The instant an epoch number names, in ms (seconds or milliseconds by its size, EPOCH_MS_FROM);
 * undefined for anything else, and for a time before 2000 (never 1970's for a `7`). Where a time is
 * shown or sorted by (`jobs list`, `jobs content`), and where the look-up among the jobs keeps those
 * created since an upload began (src/redact/recent-jobs.ts).
 */
export function epochMs(text: string): number | undefined {
  if (!EPOCH.test(text)) return undefined;
  const value = Number(text);
  const ms = value < EPOCH_MS_FROM ? value * 1000 : value;
  return ms >= FIRST_MS && ms <= LAST_MS ? Math.floor(ms) : undefined;
}

/** A listed time, in ms: a date-time (timestampMs), or an epoch number (epochMs). */
export function listedTimeMs(text: string): number | undefined {
  return listedTime(text)?.ms;
}

/**
 * A listed time (listedTimeMs) and whether it is a date-time without a zone: the service's local time,
 * its `ms` that reading taken as UTC, hours off the instant for a service away from UTC.
 */
export interface ListedTime {
  ms: number;
  zoneless: boolean;
}

export function listedTime(text: string): ListedTime | undefined {
  const match = readDateTime(text);
  const ms = match ? timestampMs(text) : epochMs(text);
  return ms === undefined ? undefined : { ms, zoneless: match !== undefined && match[4] === undefined };
}
