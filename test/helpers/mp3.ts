/**
 * Synthetic MP3 files for tests. A Layer III frame made of a header followed by all-zero side
 * information and main data is valid silence (every granule has part2_3_length 0), so frames of any
 * version, bitrate and sample rate can be generated without an encoder. MPEG-2.5 at 8 kHz and
 * 8 kbit/s gives the smallest frames: 72 bytes for 72 ms, so an hour is only ~3.6 MB.
 */
import { writeFile } from 'node:fs/promises';
import { pcm16MonoHeader } from '../../src/audio/wav-encode.js';

export type MpegVersion = 1 | 2 | 2.5;

const SAMPLE_RATES: Record<MpegVersion, number[]> = {
  1: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  2.5: [11025, 12000, 8000],
};
const LAYER3_KBPS: Record<'v1' | 'v2', number[]> = {
  v1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};

export interface Mp3Options {
  /** Number of audio frames (a Xing frame comes on top). */
  frames: number;
  /** MPEG version; default 2.5. */
  version?: MpegVersion;
  /** Sample rate in Hz; default the lowest of the version (8000 for 2.5). */
  sampleRate?: number;
  /** Bitrate in kbit/s of each frame: one value for CBR, or a function of the frame index for VBR. Default 8. */
  bitrate?: number | ((index: number) => number);
  /**
   * Prepend a header frame carrying the frame count: Xing (VBR) or Info (CBR), as LAME writes them,
   * or VBRI, as Fraunhofer's encoder does. Default none.
   */
  infoHeader?: 'Xing' | 'Info' | 'VBRI';
  /** Prepend an ID3v2 tag with this many bytes of (zero) payload. */
  id3v2Bytes?: number;
  /** Append an ID3v1 tag. */
  id3v1?: boolean;
  /** Stereo instead of mono. */
  stereo?: boolean;
}

function samplesPerFrame(version: MpegVersion): number {
  return version === 1 ? 1152 : 576;
}

/** Frame length in bytes of a Layer III frame without padding. */
export function frameLength(version: MpegVersion, bitrateKbps: number, sampleRate: number): number {
  return Math.floor(((version === 1 ? 144 : 72) * bitrateKbps * 1000) / sampleRate);
}

/** Seconds of audio in `frames` Layer III frames. */
export function framesDuration(
  frames: number,
  version: MpegVersion = 2.5,
  sampleRate = SAMPLE_RATES[version][2] as number,
) {
  return (frames * samplesPerFrame(version)) / sampleRate;
}

/** How many frames make at least `seconds` of audio. */
export function framesFor(
  seconds: number,
  version: MpegVersion = 2.5,
  sampleRate = SAMPLE_RATES[version][2] as number,
) {
  return Math.ceil((seconds * sampleRate) / samplesPerFrame(version));
}

function frame(version: MpegVersion, bitrateKbps: number, sampleRate: number, stereo: boolean): Buffer {
  const versionBits = version === 1 ? 3 : version === 2 ? 2 : 0;
  const bitrateIndex = LAYER3_KBPS[version === 1 ? 'v1' : 'v2'].indexOf(bitrateKbps);
  const rateIndex = SAMPLE_RATES[version].indexOf(sampleRate);
  if (bitrateIndex < 1) throw new Error(`no ${bitrateKbps} kbit/s Layer III bitrate in MPEG ${version}`);
  if (rateIndex < 0) throw new Error(`no ${sampleRate} Hz sample rate in MPEG ${version}`);
  const buffer = Buffer.alloc(frameLength(version, bitrateKbps, sampleRate));
  buffer[0] = 0xff;
  buffer[1] = 0xe0 | (versionBits << 3) | (1 << 1) | 1; // Layer III, no CRC
  buffer[2] = (bitrateIndex << 4) | (rateIndex << 2); // no padding
  buffer[3] = stereo ? 0x00 : 0xc0;
  return buffer;
}

/** A Xing/Info tag after the side information, with the frames and bytes fields. */
function writeXing(
  info: Buffer,
  tag: 'Xing' | 'Info',
  version: MpegVersion,
  stereo: boolean,
  frames: number,
  bytes: number,
): void {
  const at = 4 + (version === 1 ? (stereo ? 32 : 17) : stereo ? 17 : 9);
  if (info.length < at + 16) throw new Error('the first frame is too small for an info header');
  info.write(tag, at, 'latin1');
  info.writeUInt32BE(0x3, at + 4); // frames and bytes fields present
  info.writeUInt32BE(frames, at + 8);
  info.writeUInt32BE(bytes, at + 12);
}

/**
 * A VBRI tag, 32 bytes after the frame header whatever the layout, without a seek table. Its encoder
 * delay is Fraunhofer's usual 576: decoders do not trim it (ffmpeg skips the field), nor must vredact.
 */
function writeVbri(info: Buffer, frames: number, bytes: number): void {
  const at = 4 + 32;
  if (info.length < at + 26) throw new Error('the first frame is too small for a VBRI header');
  info.write('VBRI', at, 'latin1');
  info.writeUInt16BE(1, at + 4); // version
  info.writeUInt16BE(576, at + 6); // encoder delay
  info.writeUInt16BE(75, at + 8); // quality
  info.writeUInt32BE(bytes, at + 10);
  info.writeUInt32BE(frames, at + 14);
  // No seek table: 0 entries, scale 1, 2-byte entries, 1 frame an entry.
  info.writeUInt16BE(0, at + 18);
  info.writeUInt16BE(1, at + 20);
  info.writeUInt16BE(2, at + 22);
  info.writeUInt16BE(1, at + 24);
}

/** Builds an MP3 in memory. */
export function makeMp3(options: Mp3Options): Buffer {
  const version = options.version ?? 2.5;
  const sampleRate = options.sampleRate ?? (SAMPLE_RATES[version][2] as number);
  const stereo = options.stereo ?? false;
  const bitrateOf =
    typeof options.bitrate === 'function'
      ? options.bitrate
      : () => (options.bitrate as number | undefined) ?? 8;
  const parts: Buffer[] = [];
  if (options.id3v2Bytes !== undefined) {
    const tag = Buffer.alloc(10 + options.id3v2Bytes);
    tag.write('ID3', 0, 'latin1');
    tag[3] = 4;
    const size = options.id3v2Bytes;
    tag[6] = (size >> 21) & 0x7f;
    tag[7] = (size >> 14) & 0x7f;
    tag[8] = (size >> 7) & 0x7f;
    tag[9] = size & 0x7f;
    parts.push(tag);
  }
  const audio: Buffer[] = [];
  // Frames of equal bitrate are identical: build each distinct one once.
  const cache = new Map<number, Buffer>();
  for (let i = 0; i < options.frames; i++) {
    const kbps = bitrateOf(i);
    let f = cache.get(kbps);
    if (!f) {
      f = frame(version, kbps, sampleRate, stereo);
      cache.set(kbps, f);
    }
    audio.push(f);
  }
  if (options.infoHeader) {
    const kbps = Math.max(bitrateOf(0), version === 1 ? 32 : 8);
    const info = Buffer.from(frame(version, kbps, sampleRate, stereo));
    const bytes = audio.reduce((sum, f) => sum + f.length, info.length);
    if (options.infoHeader === 'VBRI') writeVbri(info, options.frames, bytes);
    else writeXing(info, options.infoHeader, version, stereo, options.frames, bytes);
    parts.push(info);
  }
  parts.push(...audio);
  if (options.id3v1) {
    const tag = Buffer.alloc(128);
    tag.write('TAG', 0, 'latin1');
    tag.write('synthetic silence', 3, 'latin1');
    parts.push(tag);
  }
  return Buffer.concat(parts);
}

/** Writes a synthetic MP3 and returns its size in bytes. */
export async function writeMp3(path: string, options: Mp3Options): Promise<number> {
  const data = makeMp3(options);
  await writeFile(path, data);
  return data.length;
}

/** A 16-bit PCM mono WAV of silence of the given length (for sync/async tests with long audio). */
export function makeWav(seconds: number, sampleRate = 8000): Buffer {
  const samples = Math.round(seconds * sampleRate);
  const header = pcm16MonoHeader(samples, sampleRate);
  return Buffer.concat([header, Buffer.alloc(samples * 2)]);
}

/** MP3 layouts that exact counts must survive: MPEG-1 and 2, VBR, tags at both ends, Xing, Info and VBRI frames. */
export const MP3_LAYOUT_CASES: ReadonlyArray<Mp3Options> = [
  { frames: 300, version: 1, sampleRate: 44100, bitrate: 128 },
  { frames: 300, version: 2, sampleRate: 16000, bitrate: (i: number) => [32, 64, 8][i % 3] as number },
  {
    frames: 500,
    infoHeader: 'Xing',
    bitrate: (i: number) => (i % 5 ? 8 : 16),
    id3v2Bytes: 2000,
    id3v1: true,
  },
  { frames: 500, infoHeader: 'Info', stereo: true, bitrate: 32 },
  { frames: 300, version: 1, sampleRate: 44100, bitrate: 128, infoHeader: 'VBRI', id3v2Bytes: 100 },
];
