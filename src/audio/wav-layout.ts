/**
 * The one home of which WAV sample layouts can be read: PCM (8 to 32 bits), IEEE float (32 or 64
 * bits), A-law and µ-law, each also as WAVE_FORMAT_EXTENSIBLE. The client's local check and the
 * sandbox's decoder judge alike: a layout one refuses, the other must not accept. Any other
 * encoding (ADPCM, MP3 in a WAV…) packs a varying number of samples per byte, so its duration
 * cannot be measured from its size, and the service cannot be counted on to decode it.
 */

export type WavEncoding = 'pcm' | 'float' | 'alaw' | 'mulaw';

const FORMAT_EXTENSIBLE = 0xfffe;
const ENCODINGS: Partial<Record<number, WavEncoding>> = { 1: 'pcm', 3: 'float', 6: 'alaw', 7: 'mulaw' };
/** Bytes 2..15 of every KSDATAFORMAT_SUBTYPE_* GUID; bytes 0..1 carry the classic format tag. */
const SUBTYPE_GUID_TAIL = [
  0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71,
];

/** Lowest and highest sample rates taken as a recording's. */
const MIN_RATE = 1000;
const MAX_RATE = 1_000_000;

/**
 * What is wrong with a `fmt ` chunk. `unsupportedSamples`: a readable header of samples in a layout
 * vredact does not measure (ADPCM, MP3 in a WAV…), which a converter reads, as opposed to a broken one.
 */
export interface LayoutProblem {
  problem: string;
  unsupportedSamples?: true;
}

/**
 * The sample encoding a `fmt ` chunk's body declares (the sub-format GUID's for
 * WAVE_FORMAT_EXTENSIBLE), or what is wrong, as a noun phrase ("an unsupported encoding (…)").
 */
export function fmtEncoding(body: Uint8Array): { encoding: WavEncoding } | LayoutProblem {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let tag = view.getUint16(0, true);
  if (tag === FORMAT_EXTENSIBLE) {
    if (body.length < 40) return { problem: 'a truncated WAVE_FORMAT_EXTENSIBLE header' };
    if (!SUBTYPE_GUID_TAIL.every((byte, i) => body[26 + i] === byte))
      return { problem: 'an unsupported WAVE_FORMAT_EXTENSIBLE sub-format', unsupportedSamples: true };
    tag = view.getUint16(24, true);
  }
  const encoding = ENCODINGS[tag];
  if (!encoding)
    return {
      problem: `an unsupported encoding (format tag 0x${tag.toString(16).padStart(4, '0')})`,
      unsupportedSamples: true,
    };
  return { encoding };
}

/**
 * Bytes of one channel's sample (blockAlign / channels: 24-bit samples in 32-bit containers are
 * read as the container), or what is wrong with the layout, as a noun phrase.
 */
export function sampleBytes(layout: {
  encoding: WavEncoding;
  channels: number;
  sampleRate: number;
  blockAlign: number;
  bitsPerSample: number;
}): { bytesPerSample: number } | LayoutProblem {
  const { encoding, channels, sampleRate, blockAlign, bitsPerSample } = layout;
  if (channels < 1) return { problem: 'zero channels' };
  if (sampleRate < MIN_RATE || sampleRate > MAX_RATE)
    return { problem: `an implausible sample rate (${sampleRate} Hz)` };
  const bytesPerSample = blockAlign / channels;
  const ok =
    Number.isInteger(bytesPerSample) &&
    ((encoding === 'pcm' && bytesPerSample >= 1 && bytesPerSample <= 4) ||
      (encoding === 'float' && (bytesPerSample === 4 || bytesPerSample === 8)) ||
      ((encoding === 'alaw' || encoding === 'mulaw') && bytesPerSample === 1));
  if (!ok) {
    return {
      problem: `an unsupported sample size (${encoding}, ${bitsPerSample} bits, block align ${blockAlign})`,
      unsupportedSamples: true,
    };
  }
  return { bytesPerSample };
}
