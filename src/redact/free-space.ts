/**
 * What a result needs on the output's disk, claimed (fs/free-space.ts) just before its file is sent
 * and before an earlier run's job is collected. A result that cannot be saved is failed after the
 * service has done the work, or fetched for nothing, and the next run (a cron job: every night) does
 * it again, to fail again. So a file whose result does not fit beside those on their way, with a
 * small reserve kept free, is not sent, a job is not collected, and the batch stops as it does on a
 * full disk.
 */
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { availableBytes, hasRoom, type RoomWords, RESERVE_BYTES } from '../fs/free-space.js';
import { formatBytes } from '../output/format.js';
import { type DurationTolerance, toleranceSeconds } from './options.js';
import { uploadFormat } from './upload-name.js';
import { RESULT_BYTES_PER_SECOND, RESULT_MAX_BYTES_PER_SECOND, resultByteCap } from './result-cap.js';

/** What a run says when the next result has no room (fs/free-space.ts holds the rule). */
export const RESULT_ROOM: RoomWords = {
  noun: 'result',
  fix: (folder) => `free some space on ${folder}, then run the same command again`,
};

/** 16-bit PCM, mono, 16 kHz: the usual layout of speech models, and the sandbox's. */
const SPEECH_BYTES_PER_SECOND = 32_000;
/**
 * What an MP3 grows by decoded to 16-bit PCM of its own rate and channels: 128 kbit/s of 44.1 kHz
 * stereo is 11 times smaller; telephony at 32 kbit/s of 8 kHz mono 4 times.
 */
const MP3_GROWTH = 12;
/** A WAV header and the chunks a service may add (LIST, bext). */
const HEADER_BYTES = 64 * 1024;

export interface ResultEstimate {
  format: 'WAV' | 'MP3';
  /** The input's size in bytes. */
  size: number;
  durationSec: number;
  /** The most a result of this input may have (verify.ts's cap): no estimate goes past it. */
  capBytes: number;
}

/**
 * The size a result will typically have: a WAV of the input's duration, in the input's own layout (a
 * WAV: its size; an MP3: decoded) or in the usual speech layout, whichever is larger. Not the cap:
 * its least rate (48 kHz stereo 32-bit) is already 12 times a speech result, and a disk with room for every
 * real result would have been called full. A result larger than the estimate still stops the batch
 * when it meets a full disk, as before.
 */
export function estimateResultBytes({ format, size, durationSec, capBytes }: ResultEstimate): number {
  const ownLayout = format === 'MP3' ? size * MP3_GROWTH : size;
  const speech = Math.ceil(durationSec * SPEECH_BYTES_PER_SECOND);
  return Math.min(capBytes, Math.max(ownLayout, speech) + HEADER_BYTES);
}

/** The estimate where a result's duration alone is known (a job's listing): the speech layout. */
export function estimateFromDuration(durationSec: number, capBytes: number): number {
  return estimateResultBytes({ format: 'WAV', size: 0, durationSec, capBytes });
}

/** The estimate for a checked input (or the input of a job), under the cap its result is held to. */
export function resultNeed(
  input: { format: 'WAV' | 'MP3'; size: number; durationSec: number },
  tolerance: DurationTolerance,
): number {
  // A WAV's result may keep the input's own layout, whatever its rate (result-cap.ts); an MP3's
  // decoded result is at most 48 kHz stereo.
  const rate = input.format === 'WAV' ? RESULT_MAX_BYTES_PER_SECOND : RESULT_BYTES_PER_SECOND;
  const capBytes = resultByteCap(input.durationSec, toleranceSeconds(tolerance, input.durationSec), rate);
  return estimateResultBytes({ ...input, capBytes });
}

/** The estimate for the result of an earlier run's job: as its upload's was, from the input it was made of. */
export function jobResultNeed(
  job: { uploadName: string; identity: { size: number } },
  durationSec: number,
  tolerance: DurationTolerance,
): number {
  return resultNeed(
    { format: uploadFormat(job.uploadName), size: job.identity.size, durationSec },
    tolerance,
  );
}

/** The results a dry run finds to be written: of the files it would send, and of the jobs it would collect. */
export interface DryRunResults {
  sent: number;
  collected: number;
  /** Their estimates, added up. */
  need: number;
}

/**
 * What a dry run says of the room for the results a run would write, or undefined when they fit: the
 * free space of the output folder's file system (of the nearest folder above it that exists, since a
 * dry run makes none), against all of them, as they stay on disk once written.
 */
export function dryRunShortage(outDir: string, { sent, collected, need }: DryRunResults): string | undefined {
  if (sent + collected === 0) return undefined;
  let folder = outDir;
  let free = availableBytes(folder);
  while (free === undefined && dirname(folder) !== folder && !exists(folder)) {
    folder = dirname(folder);
    free = availableBytes(folder);
  }
  if (free === undefined || hasRoom({ free, inFlight: 0, need, reserve: RESERVE_BYTES })) return undefined;
  const sending = `the ${sent} file(s) that would be sent`;
  const collecting = `the results of the ${collected} job(s) that would be collected`;
  const whose = collected === 0 ? sending : sent === 0 ? collecting : `${sending} and ${collecting}`;
  return (
    `not enough free space for the results: ${outDir} has ${formatBytes(free)} free, ${whose} need ` +
    `about ${formatBytes(need)}, and ${formatBytes(RESERVE_BYTES)} is kept free; the run would stop at ` +
    `the first that does not fit: free some space on ${outDir} before the run`
  );
}

function exists(folder: string): boolean {
  try {
    statfsSync(folder);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}
