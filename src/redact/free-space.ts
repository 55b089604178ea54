/**
 * Room for a result before its file is sent. A result that cannot be saved is failed after the
 * service has done the work, and the next run (a cron job: every night) sends it again, to fail
 * again. So each upload claims its result's estimated size on the output's file system until the
 * result is on disk (or the file settles without one); a file whose claim does not fit beside those
 * of the uploads in flight, with a small reserve kept free, is not sent, and the batch stops as it
 * does on a full disk.
 */
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { CliError, ExitCode } from '../errors.js';
import { type DurationTolerance, toleranceSeconds } from './options.js';
import { formatBytes } from './probe-reasons.js';
import { resultByteCap } from './verify.js';

/**
 * Kept free beyond the results: the journal's lines, the file system's own blocks, and whatever else
 * writes to that disk (a log of the run itself, often).
 */
export const RESERVE_BYTES = 1024 * 1024;

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
 * that worst case (48 kHz stereo 32-bit) is 12 times a speech result, and a disk with room for every
 * real result would have been called full. A result larger than the estimate still stops the batch
 * when it meets a full disk, as before.
 */
export function estimateResultBytes({ format, size, durationSec, capBytes }: ResultEstimate): number {
  const ownLayout = format === 'MP3' ? size * MP3_GROWTH : size;
  const speech = Math.ceil(durationSec * SPEECH_BYTES_PER_SECOND);
  return Math.min(capBytes, Math.max(ownLayout, speech) + HEADER_BYTES);
}

/** The estimate for a checked input, under the cap its result is held to. */
export function resultNeed(
  input: { format: 'WAV' | 'MP3'; size: number; durationSec: number },
  tolerance: DurationTolerance,
): number {
  const capBytes = resultByteCap(input.durationSec, toleranceSeconds(tolerance, input.durationSec));
  return estimateResultBytes({ ...input, capBytes });
}

/** The rule: a file is sent when its result fits in what is free, less the results on their way and the reserve. */
export function hasRoom(space: { free: number; inFlight: number; need: number; reserve: number }): boolean {
  return space.free - space.reserve - space.inFlight >= space.need;
}

/** The output's file system has no room for the next result: the batch stops, nothing more is sent. */
export class NoRoomForResult extends CliError {
  override name = 'NoRoomForResult';
  constructor(
    readonly folder: string,
    readonly free: number,
    readonly need: number,
    readonly inFlight: { bytes: number; count: number },
    display: string,
  ) {
    const onTheirWay =
      inFlight.count > 0
        ? `, beside about ${formatBytes(inFlight.bytes)} for the ${inFlight.count} result(s) on their way`
        : '';
    super(
      `not enough free space for the next result: ${folder} has ${formatBytes(free)} free, ` +
        `${display} needs about ${formatBytes(need)}${onTheirWay}, and ${formatBytes(RESERVE_BYTES)} is kept free`,
      ExitCode.partial,
      `free some space on ${folder}, then run the same command again`,
    );
  }
}

/** Bytes an unprivileged writer may still use on the file system of `folder` (df's "available"); undefined when it does not tell. */
export function availableBytes(folder: string): number | undefined {
  try {
    const info = statfsSync(folder);
    // Some file systems (FUSE ones mostly) report no blocks at all: they do not tell, and are not checked.
    if (!(info.blocks > 0)) return undefined;
    return info.bavail * info.bsize;
  } catch {
    // Not known (a system without statfs): the write itself still stops the batch on a full disk.
    return undefined;
  }
}

/**
 * What a dry run says of the room for the results of the files a run would send, or undefined when
 * they fit: the free space of the output folder's file system (of the nearest folder above it that
 * exists, since a dry run makes none), against all of them, as they stay on disk once written.
 */
export function dryRunShortage(outDir: string, files: number, need: number): string | undefined {
  if (files === 0) return undefined;
  let folder = outDir;
  let free = availableBytes(folder);
  while (free === undefined && dirname(folder) !== folder && !exists(folder)) {
    folder = dirname(folder);
    free = availableBytes(folder);
  }
  if (free === undefined || hasRoom({ free, inFlight: 0, need, reserve: RESERVE_BYTES })) return undefined;
  return (
    `not enough free space for the results: ${outDir} has ${formatBytes(free)} free, the ${files} ` +
    `file(s) that would be sent need about ${formatBytes(need)}, and ${formatBytes(RESERVE_BYTES)} is kept ` +
    `free; the run would stop before sending those that do not fit: free some space on ${outDir} before the run`
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

/** The results claimed by the uploads of this run that are not on disk yet. */
export class OutputSpace {
  private bytes = 0;
  private count = 0;

  constructor(private readonly available: (folder: string) => number | undefined = availableBytes) {}

  /**
   * Claims room for a result of `need` bytes that goes in `folder`: the release (call it once the
   * result is on disk, or will not come), or the shortage when it does not fit. One statfs, a few
   * microseconds, and synchronous, so no other upload claims between the look and the claim.
   */
  claim(folder: string, need: number, display: string): (() => void) | NoRoomForResult {
    const free = this.available(folder);
    const inFlight = { bytes: this.bytes, count: this.count };
    if (free !== undefined && !hasRoom({ free, inFlight: this.bytes, need, reserve: RESERVE_BYTES }))
      return new NoRoomForResult(folder, free, need, inFlight, display);
    this.bytes += need;
    this.count++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.bytes -= need;
      this.count--;
    };
  }
}
