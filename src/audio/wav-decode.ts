/**
 * WAV (RIFF / RF64) reading with our own chunk walker.
 *
 * Why not `wavefile`: it parses a whole file from one in-memory buffer, so a
 * 60-minute 48 kHz stereo 24-bit recording (≈1 GB) would have to be loaded
 * whole, and its sample getters return Float64 arrays of every channel. Here
 * only the chunk headers are read up front; the `data` chunk is then streamed
 * in fixed-size blocks and downmixed to mono as it goes.
 */
import type { FileHandle } from 'node:fs/promises';
import { AudioDecodeError } from './errors.js';
import { readAt, readChunks } from './file-io.js';
import { ALAW_TABLE, ULAW_TABLE } from './g711.js';

export type WavEncoding = 'pcm' | 'float' | 'alaw' | 'mulaw';

export interface WavInfo {
  encoding: WavEncoding;
  channels: number;
  sampleRate: number;
  /** Bytes per sample frame (all channels). */
  blockAlign: number;
  /** Container bytes per sample of one channel. */
  bytesPerSample: number;
  dataOffset: number;
  dataBytes: number;
  /** Whole sample frames in the data chunk. */
  frames: number;
}

const FORMAT_PCM = 0x0001;
const FORMAT_FLOAT = 0x0003;
const FORMAT_ALAW = 0x0006;
const FORMAT_MULAW = 0x0007;
const FORMAT_EXTENSIBLE = 0xfffe;
/** Bytes 2..15 of every KSDATAFORMAT_SUBTYPE_* GUID; bytes 0..1 carry the classic format tag. */
const SUBTYPE_GUID_TAIL = [
  0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71,
];

const ascii = (b: Uint8Array, at: number): string =>
  String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);

/** True for a RIFF/RF64 header with the WAVE form type. */
export function looksLikeWav(head: Uint8Array): boolean {
  if (head.length < 12) return false;
  const id = ascii(head, 0);
  return (id === 'RIFF' || id === 'RF64') && ascii(head, 8) === 'WAVE';
}

interface FmtChunk {
  encoding: WavEncoding;
  formatTag: number;
  channels: number;
  sampleRate: number;
  blockAlign: number;
  bitsPerSample: number;
}

function parseFmt(b: Uint8Array): FmtChunk {
  if (b.length < 16) throw new AudioDecodeError('the WAV file has a truncated fmt chunk');
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let formatTag = v.getUint16(0, true);
  const channels = v.getUint16(2, true);
  const sampleRate = v.getUint32(4, true);
  const blockAlign = v.getUint16(12, true);
  const bitsPerSample = v.getUint16(14, true);
  if (formatTag === FORMAT_EXTENSIBLE) {
    // The sub-format GUID, not the tag, says whether the samples are PCM or float.
    if (b.length < 40)
      throw new AudioDecodeError('the WAV file has a truncated WAVE_FORMAT_EXTENSIBLE header');
    const guidOk = SUBTYPE_GUID_TAIL.every((byte, i) => b[26 + i] === byte);
    if (!guidOk)
      throw new AudioDecodeError('the WAV file uses an unsupported WAVE_FORMAT_EXTENSIBLE sub-format');
    formatTag = v.getUint16(24, true);
  }
  const encoding: WavEncoding | undefined = (
    { [FORMAT_PCM]: 'pcm', [FORMAT_FLOAT]: 'float', [FORMAT_ALAW]: 'alaw', [FORMAT_MULAW]: 'mulaw' } as const
  )[formatTag as 1 | 3 | 6 | 7];
  if (!encoding) {
    throw new AudioDecodeError(
      `the WAV file uses an unsupported encoding (format tag 0x${formatTag.toString(16).padStart(4, '0')})`,
    );
  }
  return { encoding, formatTag, channels, sampleRate, blockAlign, bitsPerSample };
}

function validate(fmt: FmtChunk): number {
  if (fmt.channels < 1) throw new AudioDecodeError('the WAV file declares zero channels');
  if (fmt.sampleRate < 1000 || fmt.sampleRate > 1_000_000) {
    throw new AudioDecodeError(`the WAV file has an implausible sample rate (${fmt.sampleRate} Hz)`);
  }
  // blockAlign / channels is the container size: 24-bit samples in 32-bit containers,
  // 12-bit in 16-bit and so on are read as the container (they are left-justified).
  const bytesPerSample = fmt.blockAlign / fmt.channels;
  const ok =
    Number.isInteger(bytesPerSample) &&
    ((fmt.encoding === 'pcm' && bytesPerSample >= 1 && bytesPerSample <= 4) ||
      (fmt.encoding === 'float' && (bytesPerSample === 4 || bytesPerSample === 8)) ||
      ((fmt.encoding === 'alaw' || fmt.encoding === 'mulaw') && bytesPerSample === 1));
  if (!ok) {
    throw new AudioDecodeError(
      `the WAV file has an unsupported sample size (${fmt.encoding}, ${fmt.bitsPerSample} bits, block align ${fmt.blockAlign})`,
    );
  }
  return bytesPerSample;
}

/**
 * Walks the RIFF chunks up to `data`. Unknown chunks (LIST, fact, cue, bext…)
 * are skipped, including the pad byte that follows odd-sized chunks.
 */
export async function readWavInfo(handle: FileHandle, fileSize: number): Promise<WavInfo> {
  const head = await readAt(handle, 0, 12);
  if (!looksLikeWav(head)) throw new AudioDecodeError('not a WAV or MP3 file');
  const rf64 = ascii(head, 0) === 'RF64';
  let rf64DataSize: number | undefined;
  let fmt: FmtChunk | undefined;
  let pos = 12;
  while (pos + 8 <= fileSize) {
    const hdr = await readAt(handle, pos, 8);
    const id = ascii(hdr, 0);
    const size = new DataView(hdr.buffer, hdr.byteOffset, 8).getUint32(4, true);
    const body = pos + 8;
    if (id === 'fmt ') {
      fmt = parseFmt(await readAt(handle, body, Math.min(size, 64)));
    } else if (id === 'ds64' && rf64) {
      const ds = await readAt(handle, body, Math.min(size, 28));
      if (ds.length >= 16)
        rf64DataSize = Number(new DataView(ds.buffer, ds.byteOffset).getBigUint64(8, true));
    } else if (id === 'data') {
      if (!fmt) throw new AudioDecodeError('the WAV file has no fmt chunk before its data');
      const bytesPerSample = validate(fmt);
      const available = fileSize - body;
      let declared = size;
      if (rf64 && size === 0xffffffff && rf64DataSize !== undefined) declared = rf64DataSize;
      // 0xFFFFFFFF is what recorders write when they never came back to fix the header.
      const dataBytes = size === 0xffffffff && !rf64 ? available : Math.min(declared, available);
      const frames = Math.floor(dataBytes / fmt.blockAlign);
      if (frames === 0) throw new AudioDecodeError('the WAV file has no samples');
      return {
        encoding: fmt.encoding,
        channels: fmt.channels,
        sampleRate: fmt.sampleRate,
        blockAlign: fmt.blockAlign,
        bytesPerSample,
        dataOffset: body,
        dataBytes: frames * fmt.blockAlign,
        frames,
      };
    }
    pos = body + size + (size & 1);
  }
  throw new AudioDecodeError(fmt ? 'the WAV file has no data chunk' : 'the WAV file has no fmt chunk');
}

type SampleReader = (v: DataView, at: number) => number;

function sampleReader(info: WavInfo): SampleReader {
  switch (info.encoding) {
    case 'alaw':
      return (v, at) => ALAW_TABLE[v.getUint8(at)]!;
    case 'mulaw':
      return (v, at) => ULAW_TABLE[v.getUint8(at)]!;
    case 'float':
      // NaN/Inf in a float file would poison every later computation; treat them as silence.
      return info.bytesPerSample === 8
        ? (v, at) => {
            const s = v.getFloat64(at, true);
            return Number.isFinite(s) ? s : 0;
          }
        : (v, at) => {
            const s = v.getFloat32(at, true);
            return Number.isFinite(s) ? s : 0;
          };
    default:
      switch (info.bytesPerSample) {
        case 1:
          return (v, at) => (v.getUint8(at) - 128) / 128; // 8-bit WAV is unsigned
        case 2:
          return (v, at) => v.getInt16(at, true) / 32768;
        case 3:
          return (v, at) =>
            (v.getUint8(at) | (v.getUint8(at + 1) << 8) | (v.getInt8(at + 2) << 16)) / 8388608;
        default:
          return (v, at) => v.getInt32(at, true) / 2147483648;
      }
  }
}

/** Converts interleaved sample frames to mono by averaging the channels. */
export function wavBytesToMono(info: WavInfo, bytes: Uint8Array): Float32Array {
  const frames = Math.floor(bytes.length / info.blockAlign);
  const out = new Float32Array(frames);
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const read = sampleReader(info);
  const { channels, blockAlign, bytesPerSample } = info;
  if (channels === 1) {
    for (let f = 0; f < frames; f++) out[f] = read(v, f * blockAlign);
  } else {
    const inv = 1 / channels;
    for (let f = 0; f < frames; f++) {
      let sum = 0;
      const at = f * blockAlign;
      for (let c = 0; c < channels; c++) sum += read(v, at + c * bytesPerSample);
      out[f] = sum * inv;
    }
  }
  return out;
}

/** Streams the data chunk as mono chunks at the file's own rate. */
export async function* decodeWavMono(handle: FileHandle, info: WavInfo): AsyncGenerator<Float32Array> {
  // A whole number of frames per read, so no sample straddles two chunks.
  const chunkBytes = Math.max(1, Math.floor((256 * 1024) / info.blockAlign)) * info.blockAlign;
  for await (const bytes of readChunks(handle, info.dataOffset, info.dataBytes, chunkBytes)) {
    yield wavBytesToMono(info, bytes);
  }
}
