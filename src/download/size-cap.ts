/**
 * A downloaded file can never fill the disk: it is cut off and failed past the cap `redact` puts on a
 * result (result-cap.ts), from the duration the job's listing gives, or, when it gives none, from the
 * longest recording the service accepts. A body that opens with a RIFF/WAVE header is bounded here at
 * the highest rate for those seconds and past the size that header declares (at most 4 GiB), and by
 * the check of its layout's own rate (verify.ts, given `seconds`): a 96 kHz 24-bit stereo master of no
 * listed duration is not cut off at the least rate's hour. A body that is not a WAV (a file of another
 * name, kept as it came: verified-download.ts), which has no layout to check, is bounded at the least
 * rate.
 */
import { declaresLength, isRiffWave } from '../audio/riff.js';
import { CliError, ExitCode } from '../errors.js';
import { readHead } from './body-head.js';
import { formatLength } from '../output/format.js';
import { estimateFromDuration } from '../redact/free-space.js';
import {
  DEFAULT_DURATION_TOLERANCE,
  DEFAULT_MAX_DURATION_SECONDS,
  toleranceSeconds,
} from '../redact/options.js';
import { RESULT_MAX_BYTES_PER_SECOND, resultByteCap } from '../redact/result-cap.js';

/**
 * A downloaded file past its cap: failed, never fetched again. Fetched again it would be the same, so
 * only the service's operators can mend it (the file, or the duration its listing gives).
 */
export class DownloadTooLargeError extends CliError {
  override name = 'DownloadTooLargeError';
  constructor(message: string) {
    super(message, ExitCode.partial, "nothing of it was kept; report the file to the service's operators");
  }
}

/**
 * A downloaded file with no bytes (a 204, an empty 200): no recording is empty; failed, nothing kept.
 * A result not yet written where the link points may be there on a later run.
 */
export class EmptyDownloadError extends CliError {
  override name = 'EmptyDownloadError';
  constructor(message: string) {
    super(
      message,
      ExitCode.partial,
      "run the same command again; if it is still empty, report it to the service's operators",
    );
  }
}

export interface SizeCap {
  /** The cap of a body that is not a WAV, at the least rate. */
  bytes: number;
  /** The cap of a WAV body before its layout is known, at the highest rate (then its header's size bounds it). */
  wavBytes: number;
  /** The seconds of audio allowed, for the check of a WAV body's own rate. */
  seconds: number;
  /** What the cap stands for, for the reason a file fails: "a 12 s recording". */
  of: string;
  /**
   * The size a file of the listed duration is expected to have (a result's estimate, as `redact`
   * makes it), the room it needs before it is asked for; undefined where the listing gives none.
   */
  expectedBytes?: number;
}

/**
 * The cap of a file whose listing gave `durationSec` (seconds, as api/audio-duration.ts reads `audio_duration`).
 * A duration that is missing, not positive, or beyond what the service accepts is not trusted: the
 * service's own limit stands in for it.
 */
export function downloadSizeCap(durationSec: number | null | undefined): SizeCap {
  const known =
    typeof durationSec === 'number' &&
    Number.isFinite(durationSec) &&
    durationSec > 0 &&
    durationSec <= DEFAULT_MAX_DURATION_SECONDS;
  const seconds = known ? durationSec : DEFAULT_MAX_DURATION_SECONDS;
  const slack = toleranceSeconds(DEFAULT_DURATION_TOLERANCE, seconds);
  const bytes = resultByteCap(seconds, slack);
  const wavBytes = resultByteCap(seconds, slack, RESULT_MAX_BYTES_PER_SECOND);
  const bounds = { bytes, wavBytes, seconds: seconds + slack };
  // No estimate of its size: its room is claimed as it comes (file-room.ts).
  if (!known)
    return { ...bounds, of: `the longest recording the service accepts (${formatLength(seconds)})` };
  return {
    ...bounds,
    of: `a ${formatLength(seconds)} recording`,
    expectedBytes: estimateFromDuration(seconds, bytes),
  };
}

/** The whole size a RIFF/WAVE header declares (its size field counts all but the first 8 bytes). */
function declaredFileBytes(head: Buffer): number | undefined {
  if (!isRiffWave(head)) return undefined;
  const size = head.readUInt32LE(4);
  if (!declaresLength(size)) return undefined;
  return 8 + size + (size % 2);
}

const RIFF_HEAD_BYTES = 12;

/**
 * Passes `body` on, throwing DownloadTooLargeError before the first byte past the cap is passed on,
 * or before any byte when the body is announced (`contentLength`) past it or past its WAV header's size; EmptyDownloadError at the
 * end of a body with no bytes. Its first 12 bytes are read before any is passed on: they tell a WAV
 * (bounded at the highest rate, and by its header's size) from any other file (at the least rate).
 */
export async function* capped(
  body: AsyncIterable<Uint8Array>,
  cap: SizeCap,
  contentLength?: number,
): AsyncIterable<Uint8Array> {
  const read = await readHead(body, RIFF_HEAD_BYTES);
  try {
    if (read.head.length === 0) throw new EmptyDownloadError('the service sent an empty file (0 bytes)');
    const start = read.head.subarray(0, RIFF_HEAD_BYTES);
    let limit = isRiffWave(start) ? cap.wavBytes : cap.bytes;
    let limitOf = `more than ${cap.of} can need`;
    const declared = declaredFileBytes(start);
    if (declared !== undefined && declared < limit) {
      limit = declared;
      limitOf = 'more than its WAV header declares';
    }
    if (contentLength !== undefined && contentLength > limit) {
      throw new DownloadTooLargeError(
        `the file is announced at ${contentLength} bytes, ${limitOf} (${limit})`,
      );
    }
    let total = 0;
    for await (const chunk of read.whole()) {
      total += chunk.byteLength;
      if (total > limit)
        throw new DownloadTooLargeError(`the file was cut off past ${limit} bytes, ${limitOf}`);
      yield chunk;
    }
  } finally {
    await read.close();
  }
}
