/**
 * Exact length of an MPEG audio file by walking its frame headers.
 *
 * music-metadata's quick parse takes an MP3's duration from a Xing/Info/VBRI header when there is one
 * and otherwise guesses it from the file size and the first frames' bitrate: a VBR file without a
 * header whose first frames share a bitrate is taken for CBR and its length can be wildly off (a 61-minute
 * file can look like 3 minutes). Even its full scan (`duration: true`) stops at that guess. So the
 * length that the duration limit is judged on is counted here, frame by frame: every frame header
 * gives its size and sample count. Reading is streamed in 1 MiB windows; memory does not grow with the file.
 */
import { open } from 'node:fs/promises';

export interface MpegScan {
  /** Audio frames counted (a Xing/Info/VBRI header frame is not audio and is not counted). */
  frames: number;
  samples: number;
  /** Seconds of audio: the sum of each frame's samples over its sample rate. */
  durationSec: number;
  /** MPEG version and layer of the first frame. */
  version: 1 | 2 | 2.5 | undefined;
  layer: 1 | 2 | 3 | undefined;
  sampleRate: number | undefined;
  /** The VBR/info header found in the first frame, if any. */
  infoHeader: 'Xing' | 'Info' | 'VBRI' | undefined;
  /** Bytes between frames that were not frames (tags excluded). */
  junkBytes: number;
}

export interface FrameHeader {
  version: 1 | 2 | 2.5;
  layer: 1 | 2 | 3;
  sampleRate: number;
  bitrate: number;
  length: number;
  samples: number;
  crc: boolean;
  mono: boolean;
}

const BITRATES_KBPS = {
  v1l1: [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  v1l2: [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  v1l3: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2l1: [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  v2l23: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const SAMPLE_RATES = { 1: [44100, 48000, 32000], 2: [22050, 24000, 16000], 2.5: [11025, 12000, 8000] };

/** Parses the four bytes of a frame header; undefined unless it is a valid, non-free-format header. */
export function parseFrameHeader(b0: number, b1: number, b2: number, b3: number): FrameHeader | undefined {
  if (b0 !== 0xff || (b1 & 0xe0) !== 0xe0) return undefined;
  const versionBits = (b1 >> 3) & 3;
  const layerBits = (b1 >> 1) & 3;
  if (versionBits === 1 || layerBits === 0) return undefined;
  const version = versionBits === 3 ? 1 : versionBits === 2 ? 2 : 2.5;
  const layer = (4 - layerBits) as 1 | 2 | 3;
  const bitrateIndex = b2 >> 4;
  const rateIndex = (b2 >> 2) & 3;
  if (bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3 || (b3 & 3) === 2) return undefined;
  const table =
    version === 1
      ? layer === 1
        ? BITRATES_KBPS.v1l1
        : layer === 2
          ? BITRATES_KBPS.v1l2
          : BITRATES_KBPS.v1l3
      : layer === 1
        ? BITRATES_KBPS.v2l1
        : BITRATES_KBPS.v2l23;
  const bitrate = (table[bitrateIndex] as number) * 1000;
  const sampleRate = SAMPLE_RATES[version][rateIndex] as number;
  const padding = (b2 >> 1) & 1;
  let length: number;
  let samples: number;
  if (layer === 1) {
    samples = 384;
    length = (Math.floor((12 * bitrate) / sampleRate) + padding) * 4;
  } else if (layer === 2 || version === 1) {
    samples = 1152;
    length = Math.floor((144 * bitrate) / sampleRate) + padding;
  } else {
    samples = 576;
    length = Math.floor((72 * bitrate) / sampleRate) + padding;
  }
  return { version, layer, sampleRate, bitrate, length, samples, crc: (b1 & 1) === 0, mono: b3 >> 6 === 3 };
}

/** Length of Layer III side information, after the header (and CRC). */
export function sideInfoLength(header: Pick<FrameHeader, 'version' | 'mono'>): number {
  if (header.version === 1) return header.mono ? 17 : 32;
  return header.mono ? 9 : 17;
}

const WINDOW = 1 << 20;

/** Positional reads through a 1 MiB window. */
class Reader {
  readonly #buffer = Buffer.alloc(WINDOW);
  #start = 0;
  #length = 0;
  constructor(
    readonly handle: Awaited<ReturnType<typeof open>>,
    readonly size: number,
  ) {}

  /** Makes bytes [pos, pos + n) available; false when the file ends before. */
  async ensure(pos: number, n: number): Promise<boolean> {
    if (pos + n > this.size) return false;
    if (pos >= this.#start && pos + n <= this.#start + this.#length) return true;
    this.#start = pos;
    this.#length = 0;
    const want = Math.min(WINDOW, this.size - pos);
    while (this.#length < want) {
      const { bytesRead } = await this.handle.read(
        this.#buffer,
        this.#length,
        want - this.#length,
        pos + this.#length,
      );
      if (bytesRead === 0) break;
      this.#length += bytesRead;
    }
    return pos + n <= this.#start + this.#length;
  }

  /** The next position from `pos` holding 0xFF within the current window (or the window's end). */
  nextSyncCandidate(pos: number): number {
    const from = pos - this.#start;
    if (from < 0 || from >= this.#length) return pos;
    const found = this.#buffer.subarray(0, this.#length).indexOf(0xff, from);
    return found === -1 ? this.#start + this.#length : this.#start + found;
  }

  /** A byte already made available by `ensure`. */
  at(pos: number): number {
    return this.#buffer[pos - this.#start] as number;
  }

  async header(pos: number): Promise<FrameHeader | undefined> {
    if (!(await this.ensure(pos, 4))) return undefined;
    return parseFrameHeader(this.at(pos), this.at(pos + 1), this.at(pos + 2), this.at(pos + 3));
  }

  async text(pos: number, n: number): Promise<string> {
    if (!(await this.ensure(pos, n))) return '';
    let out = '';
    for (let i = 0; i < n; i++) out += String.fromCharCode(this.at(pos + i));
    return out;
  }
}

function sameStream(a: FrameHeader, b: FrameHeader): boolean {
  return a.version === b.version && a.layer === b.layer && a.sampleRate === b.sampleRate;
}

/** Size of the ID3v2 tags at `pos` (several may follow each other), 0 when none. */
async function id3v2Size(reader: Reader, pos: number): Promise<number> {
  let total = 0;
  while ((await reader.text(pos + total, 3)) === 'ID3' && (await reader.ensure(pos + total, 10))) {
    const at = pos + total;
    const size =
      ((reader.at(at + 6) & 0x7f) << 21) |
      ((reader.at(at + 7) & 0x7f) << 14) |
      ((reader.at(at + 8) & 0x7f) << 7) |
      (reader.at(at + 9) & 0x7f);
    const footer = (reader.at(at + 5) & 0x10) !== 0 ? 10 : 0;
    total += 10 + size + footer;
  }
  return total;
}

/**
 * Whether a frame at `pos` is believable: its header is valid, and it is followed by another frame of
 * the same stream, or by the end of the file, or by a tag. One lone `FF Ex` byte pair in junk is not a frame.
 */
async function chained(reader: Reader, pos: number, header: FrameHeader): Promise<boolean> {
  const next = pos + header.length;
  if (next === reader.size) return true;
  if (next > reader.size) return false;
  const following = await reader.header(next);
  if (following && sameStream(header, following)) return true;
  const tag = await reader.text(next, 3);
  return tag === 'TAG' || tag === 'APE' || tag === 'LYR' || tag === 'ID3';
}

/** Walks every frame of an MPEG audio file and returns its exact length. */
export async function scanMpeg(path: string): Promise<MpegScan> {
  const handle = await open(path, 'r');
  try {
    const size = (await handle.stat()).size;
    const reader = new Reader(handle, size);
    const scan: MpegScan = {
      frames: 0,
      samples: 0,
      durationSec: 0,
      version: undefined,
      layer: undefined,
      sampleRate: undefined,
      infoHeader: undefined,
      junkBytes: 0,
    };
    let pos = await id3v2Size(reader, 0);
    let previous: FrameHeader | undefined;
    while (pos + 4 <= size) {
      const header = await reader.header(pos);
      const accepted =
        header !== undefined &&
        pos + header.length <= size &&
        ((previous !== undefined && sameStream(previous, header)) || (await chained(reader, pos, header)));
      if (!header || !accepted) {
        const tag = await reader.text(pos, 8);
        if (tag.startsWith('TAG') && size - pos <= 128 + 227) break; // ID3v1 (maybe after an enhanced tag): the end
        if (tag === 'APETAGEX' && (await reader.ensure(pos, 16))) {
          // An APEv2 footer or header: 32 bytes; its size field counts the items and the footer.
          const tagSize =
            reader.at(pos + 12) |
            (reader.at(pos + 13) << 8) |
            (reader.at(pos + 14) << 16) |
            (reader.at(pos + 15) << 24);
          pos += Math.max(32, tagSize >>> 0);
          continue;
        }
        const next = Math.max(pos + 1, reader.nextSyncCandidate(pos + 1));
        scan.junkBytes += next - pos;
        pos = next;
        continue;
      }
      if (scan.frames === 0 && scan.version === undefined) {
        scan.version = header.version;
        scan.layer = header.layer;
        scan.sampleRate = header.sampleRate;
        const info = await firstFrameInfo(reader, pos, header);
        if (info) {
          scan.infoHeader = info;
          previous = header;
          pos += header.length;
          continue;
        }
      }
      scan.frames++;
      scan.samples += header.samples;
      scan.durationSec += header.samples / header.sampleRate;
      previous = header;
      pos += header.length;
    }
    return scan;
  } finally {
    await handle.close();
  }
}

async function firstFrameInfo(
  reader: Reader,
  pos: number,
  header: FrameHeader,
): Promise<MpegScan['infoHeader']> {
  if (header.layer !== 3) return undefined;
  const xingAt = pos + 4 + (header.crc ? 2 : 0) + sideInfoLength(header);
  const xing = await reader.text(xingAt, 4);
  if (xing === 'Xing' || xing === 'Info') return xing;
  if ((await reader.text(pos + 36, 4)) === 'VBRI') return 'VBRI';
  return undefined;
}
