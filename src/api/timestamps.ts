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
