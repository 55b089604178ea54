/**
 * One MPEG audio frame header (ISO 11172-3 / 13818-3): its version, layer, rate, channels and the
 * length of its frame, from 4 bytes.
 */

export interface Mp3FrameHeader {
  /** 1 = MPEG-1, 2 = MPEG-2 (LSF), 2.5 = MPEG-2.5. */
  version: 1 | 2 | 2.5;
  layer: 1 | 2 | 3;
  sampleRate: number;
  channels: 1 | 2;
  frameBytes: number;
  samplesPerFrame: number;
  /** A 16-bit CRC follows the header (its protection bit is 0): what comes after starts 2 bytes later. */
  crc: boolean;
}

// kbit/s by bitrate index 1..14 (0 = free format, 15 = invalid; both rejected).
const BITRATES: Record<string, readonly number[]> = {
  '1-1': [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  '1-2': [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1-3': [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2-1': [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  '2-2': [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const SAMPLE_RATES: Record<string, readonly number[]> = {
  '1': [44100, 48000, 32000],
  '2': [22050, 24000, 16000],
  '2.5': [11025, 12000, 8000],
};

/**
 * Parses a 4-byte frame header; null when it is not a usable one (free format included: its frame
 * length is not in the header). Layers I and II are parsed too, so that callers can name them.
 */
export function parseMp3Header(b0: number, b1: number, b2: number, b3: number): Mp3FrameHeader | null {
  if (b0 !== 0xff || (b1 & 0xe0) !== 0xe0) return null;
  const versionBits = (b1 >> 3) & 3;
  const layerBits = (b1 >> 1) & 3;
  const bitrateIndex = b2 >> 4;
  const rateIndex = (b2 >> 2) & 3;
  if (versionBits === 1 || layerBits === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) {
    return null;
  }
  if ((b3 & 3) === 2) return null; // reserved emphasis: a false sync, in practice
  const version = versionBits === 3 ? 1 : versionBits === 2 ? 2 : 2.5;
  const layer = (4 - layerBits) as 1 | 2 | 3;
  const table = version === 1 ? `1-${layer}` : layer === 1 ? '2-1' : '2-2';
  const bitrate = BITRATES[table]![bitrateIndex - 1]! * 1000;
  const sampleRate = SAMPLE_RATES[String(version)]![rateIndex]!;
  const padding = (b2 >> 1) & 1;
  let frameBytes: number;
  let samplesPerFrame: number;
  if (layer === 1) {
    frameBytes = (Math.floor((12 * bitrate) / sampleRate) + padding) * 4;
    samplesPerFrame = 384;
  } else if (layer === 2 || version === 1) {
    frameBytes = Math.floor((144 * bitrate) / sampleRate) + padding;
    samplesPerFrame = 1152;
  } else {
    frameBytes = Math.floor((72 * bitrate) / sampleRate) + padding;
    samplesPerFrame = 576;
  }
  const channels = b3 >> 6 === 3 ? 1 : 2;
  return { version, layer, sampleRate, channels, frameBytes, samplesPerFrame, crc: (b1 & 1) === 0 };
}

/** Whether two frames belong to one stream (a false sync seldom agrees with the frame before). */
export function sameStream(a: Mp3FrameHeader, b: Mp3FrameHeader): boolean {
  return a.version === b.version && a.layer === b.layer && a.sampleRate === b.sampleRate;
}
