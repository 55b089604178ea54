/**
 * The most bytes a result may have, the one home of the rule `redact` and `download` bound a body
 * by, so that a result can never fill the disk. A result is a redacted recording of the input's
 * duration, in a layout the interface does not show: the service may keep the input's own (a 96 kHz
 * 24-bit stereo master stays one, 576,000 bytes a second) or write its usual one. So the cap counts
 * the bytes a second of the body's own layout, as its `fmt ` chunk declares it, for the seconds
 * allowed, and 1 MiB for headers and trailing chunks. That rate counts as at least 48 kHz stereo of
 * 32-bit samples (an MP3's decoded result at most; a body in a smaller layout is judged by its
 * duration) and at most 192 kHz, 8 channels of 32-bit samples, so a header cannot declare the cap
 * away. Before a body's layout is read, the highest rate bounds it.
 */

export const RESULT_HEADROOM_BYTES = 1024 * 1024;
/** 48 kHz, 2 channels, 32-bit samples: the least bytes a second a result is allowed. */
export const RESULT_BYTES_PER_SECOND = 48_000 * 2 * 4;
/** 192 kHz, 8 channels, 32-bit samples: the most, whatever its header declares. */
export const RESULT_MAX_BYTES_PER_SECOND = 192_000 * 8 * 4;

/** What a `fmt ` chunk declares of a layout's bytes a second. */
export interface DeclaredLayout {
  sampleRate: number;
  blockAlign: number;
}

/** The bytes a second a result of `layout` is allowed (the highest, while it is not known). */
export function resultBytesPerSecond(layout?: DeclaredLayout): number {
  if (!layout) return RESULT_MAX_BYTES_PER_SECOND;
  const declared = layout.sampleRate * layout.blockAlign;
  return Math.min(RESULT_MAX_BYTES_PER_SECOND, Math.max(RESULT_BYTES_PER_SECOND, declared));
}

/** The cap of a result allowed `seconds` of audio, `bytesPerSecond` of it a second. */
export function byteCapFor(seconds: number, bytesPerSecond: number): number {
  return RESULT_HEADROOM_BYTES + Math.ceil(bytesPerSecond * seconds);
}

/**
 * The cap of the result of an input of `durationSec`, allowed `toleranceSec` more: at the least rate
 * unless another is given (a layout's, or the highest before it is known).
 */
export function resultByteCap(
  durationSec: number,
  toleranceSec: number,
  bytesPerSecond = RESULT_BYTES_PER_SECOND,
): number {
  return byteCapFor(durationSec + toleranceSec, bytesPerSecond);
}
