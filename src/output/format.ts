import { epochMs, readDateTime, timestampMs } from '../api/timestamps.js';
/**
 * `m:ss` (or `h:mm:ss`) for a duration in seconds (an item's `audio_duration` is read as such by
 * api/audio-duration.ts).
 */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return '';
  const total = Math.round(seconds);
  // Past what a number counts exactly (1e308 from a service) the hours would read in exponent form.
  if (!Number.isSafeInteger(total)) return '';
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** `1.5 MiB`-style sizes in binary units, for messages. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 ? Math.round(value) : Math.round(value * 10) / 10} ${units[unit]}`;
}

/** A recording's length in a sentence: `4.01 s` under a minute, `m:ss` (or `h:mm:ss`) past it. */
export function formatLength(seconds: number): string {
  return seconds < 60 ? `${Math.round(seconds * 100) / 100} s` : formatDuration(seconds);
}

/**
 * Figures told apart: each formatted by `format`, and where two that differ would read the same
 * (`too long: 1:00:00, the limit is 1:00:00` for 3600.05 s), all of them by `exact` instead.
 */
export function apart(
  values: readonly number[],
  format: (value: number) => string,
  exact: (value: number) => string,
): string[] {
  const shown = values.map(format);
  const clash = values.some((value, i) =>
    values.some((other, j) => j > i && other !== value && shown[j] === shown[i]),
  );
  return clash ? values.map(exact) : shown;
}

/** Seconds to the millisecond: `3600.05 s`, where a rounded length would hide a difference. */
export function exactSeconds(seconds: number): string {
  return `${Math.round(seconds * 1000) / 1000} s`;
}

/**
 * A timestamp as the service sent it, shortened for a table: `2026-11-21 05:14:03`, in UTC. Text
 * that is not a date-time is shown as it came, and so is one without a zone (which it does not say).
 * `markUtc`: a time moved to UTC says so (`2026-11-21 05:14:03 UTC`), for a person at a terminal in
 * another zone; a pipe's scripts read the time unmarked, as they always have. A time without a zone
 * is never marked: it is in no zone vredact knows. An epoch number (`1732166043`, seconds or
 * milliseconds by its size: epochMs) is a UTC time, shown as one.
 */
export function formatTimestamp(text: string, markUtc = false): string {
  const match = readDateTime(text);
  const ms = match ? timestampMs(text) : epochMs(text);
  if (ms === undefined) return text;
  if (match && match[4] === undefined) return `${match[1]} ${match[2]}`;
  const utc = new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
  return markUtc ? `${utc} UTC` : utc;
}
