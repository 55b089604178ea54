/**
 * Room on the output's disk for the files on their way, `redact`'s results and `download`'s files
 * alike. A file fetched only to fail for want of space costs its transfer (for `redact`, a redaction
 * too) on every run, as a nightly job meets the same full disk each night. So each file claims its
 * expected size on the output's file system until it is on disk (or will not come); a claim that
 * does not fit beside those in flight, with a small reserve kept free, is refused, and the command
 * starts nothing new, as it does on a full disk.
 */
import { statfsSync } from 'node:fs';
import { CliError, ExitCode } from '../errors.js';
import { formatBytes } from '../output/format.js';

/**
 * Kept free beyond the files: the journal's lines, the file system's own blocks, and whatever else
 * writes to that disk (a log of the run itself, often).
 */
export const RESERVE_BYTES = 1024 * 1024;

/** The rule: a file is started when it fits in what is free, less the files on their way and the reserve. */
export function hasRoom(space: { free: number; inFlight: number; need: number; reserve: number }): boolean {
  return space.free - space.reserve - space.inFlight >= space.need;
}

/** Bytes an unprivileged writer may still use on the file system of `folder` (df's "available"); undefined when it does not tell. */
export function availableBytes(folder: string): number | undefined {
  try {
    const info = statfsSync(folder);
    // Some file systems (FUSE ones mostly) report no blocks at all: they do not tell, and are not checked.
    if (!(info.blocks > 0)) return undefined;
    return info.bavail * info.bsize;
  } catch {
    // Not known (a system without statfs): the write itself still stops the command on a full disk.
    return undefined;
  }
}

/** How a command names what it writes, and what the user can do when there is no room for it. */
export interface RoomWords {
  /** `result`, `file`: "not enough free space for the next result". */
  noun: string;
  /** The hint: what to do about a full `folder`. */
  fix: (folder: string) => string;
}

/** The output's file system has no room for the next file: it is not started, nor anything after it. */
export class NoRoomOnDisk extends CliError {
  override name = 'NoRoomOnDisk';
  constructor(
    readonly folder: string,
    readonly free: number,
    readonly need: number,
    readonly inFlight: { bytes: number; count: number },
    display: string,
    words: RoomWords,
  ) {
    const onTheirWay =
      inFlight.count > 0
        ? `, beside about ${formatBytes(inFlight.bytes)} for the ${inFlight.count} ${words.noun}(s) on their way`
        : '';
    super(
      `not enough free space for the next ${words.noun}: ${folder} has ${formatBytes(free)} free, ` +
        `${display} needs about ${formatBytes(need)}${onTheirWay}, and ${formatBytes(RESERVE_BYTES)} is kept free`,
      ExitCode.partial,
      words.fix(folder),
    );
  }
}

/** The room claimed by the files of this run that are not on disk yet. */
export class OutputSpace {
  private bytes = 0;
  private count = 0;

  constructor(
    private readonly words: RoomWords,
    private readonly available: (folder: string) => number | undefined = availableBytes,
  ) {}

  /**
   * Claims room for a file of `need` bytes that goes in `folder`: the release (call it once the file
   * is on disk, or will not come), or the shortage when it does not fit. One statfs, a few
   * microseconds, and synchronous, so no other file claims between the look and the claim.
   */
  claim(folder: string, need: number, display: string): (() => void) | NoRoomOnDisk {
    const free = this.available(folder);
    const inFlight = { bytes: this.bytes, count: this.count };
    if (free !== undefined && !hasRoom({ free, inFlight: this.bytes, need, reserve: RESERVE_BYTES }))
      return new NoRoomOnDisk(folder, free, need, inFlight, display, this.words);
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
