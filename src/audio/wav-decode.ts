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
import { declaresLength, ds64DataBytes, isRf64, isRiffWave } from './riff.js';
import { fmtEncoding, sampleBytes, type WavEncoding } from './wav-layout.js';

export type { WavEncoding } from './wav-layout.js';

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

const ascii = (b: Uint8Array, at: number): string =>
  String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);

/** True for a RIFF/RF64 header with the WAVE form type: the client's local check's own rule. */
export const looksLikeWav = isRiffWave;

interface FmtChunk {
  encoding: WavEncoding;
  channels: number;
  sampleRate: number;
  blockAlign: number;
  bitsPerSample: number;
}

function parseFmt(b: Uint8Array): FmtChunk {
  if (b.length < 16) throw new AudioDecodeError('the WAV file has a truncated fmt chunk');
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const declared = fmtEncoding(b);
  if ('problem' in declared) throw new AudioDecodeError(`the WAV file has ${declared.problem}`);
  return {
    encoding: declared.encoding,
    channels: v.getUint16(2, true),
    sampleRate: v.getUint32(4, true),
    blockAlign: v.getUint16(12, true),
    bitsPerSample: v.getUint16(14, true),
  };
}

function validate(fmt: FmtChunk): number {
  const layout = sampleBytes(fmt);
  if ('problem' in layout) throw new AudioDecodeError(`the WAV file has ${layout.problem}`);
  return layout.bytesPerSample;
}

/**
 * Walks the RIFF chunks up to `data`. Unknown chunks (LIST, fact, cue, bext…)
 * are skipped, including the pad byte that follows odd-sized chunks.
 */
export async function readWavInfo(handle: FileHandle, fileSize: number): Promise<WavInfo> {
  const head = await readAt(handle, 0, 12);
  if (!looksLikeWav(head)) throw new AudioDecodeError('not a WAV or MP3 file');
  const rf64 = isRf64(head);
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
      rf64DataSize = ds64DataBytes(await readAt(handle, body, Math.min(size, 28)));
    } else if (id === 'data') {
      if (!fmt) throw new AudioDecodeError('the WAV file has no fmt chunk before its data');
      const bytesPerSample = validate(fmt);
      const available = fileSize - body;
      const declared = size === 0xffffffff && rf64DataSize !== undefined ? rf64DataSize : size;
      // 0xFFFFFFFF (or 0) is what recorders write when they never came back to fix the header: the
      // audio runs to the end of the file, as the client's local check counts it (riff.ts).
      const dataBytes = declaresLength(declared) ? Math.min(declared, available) : available;
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

export type SampleReader = (v: DataView, at: number) => number;

/** Reads one sample of one channel at a byte offset, as a number from -1 to 1. */
export function sampleReader(info: WavInfo): SampleReader {
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
