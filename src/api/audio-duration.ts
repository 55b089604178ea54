import {
  DEFAULT_DURATION_TOLERANCE,
  DEFAULT_MAX_DURATION_SECONDS,
  toleranceSeconds,
} from '../redact/options.js';

/**
 * The longest result a listing can describe in seconds: the service refuses audio past its limit, and
 * a result within the tolerance of such an input is the longest it answers.
 */
const LONGEST_RESULT_SECONDS =
  DEFAULT_MAX_DURATION_SECONDS + toleranceSeconds(DEFAULT_DURATION_TOLERANCE, DEFAULT_MAX_DURATION_SECONDS);

/**
 * The seconds an item's `audio_duration` stands for. The interface does not state its unit: it is read
 * as seconds (as the sandbox sends it), except a value that no recording the service accepts can reach
 * in seconds, which can only be milliseconds (a service listing 6999 for a 7-s file was shown as
 * 1:56:39). Never the other way: a duration in seconds read as milliseconds would shrink the cap on
 * its download below the file.
 */
export function listedDurationSeconds(listed: number | null | undefined): number | null {
  if (listed === null || listed === undefined) return null;
  return listed > LONGEST_RESULT_SECONDS ? listed / 1000 : listed;
}

/**
 * Every number of seconds an item's `audio_duration` may stand for, as listedDurationSeconds reads it
 * first: a value past what seconds can reach is milliseconds alone; any other may be either (a
 * 3-s file listed as 3000 reads as 3000 s), so a check that must not fail a good file allows both.
 */
export function listedDurationReadings(listed: number | null | undefined): number[] {
  if (listed === null || listed === undefined || !Number.isFinite(listed) || listed <= 0) return [];
  return listed > LONGEST_RESULT_SECONDS ? [listed / 1000] : [listed, listed / 1000];
}
