/**
 * Entry points for reading audio files: format sniffing, duration measurement
 * and decoding to the 16 kHz mono working signal.
 */
import { type FileHandle, open } from 'node:fs/promises';
import { AudioDecodeError } from './errors.js';
import { FileWindow, readAt } from './file-io.js';
import { decodeMp3Mono } from './mp3-decode.js';
import { looksLikeMp3, scanMp3 } from './mp3-frames.js';
import { StreamingResampler } from './resample.js';
import { SampleBuffer } from './sample-buffer.js';
import { decodeWavMono, looksLikeWav, readWavInfo } from './wav-decode.js';

/** The rate every DSP stage works at, and the rate of the output WAV. */
export const WORKING_RATE = 16000;

export interface DecodedAudio {
  /** Mono samples at WORKING_RATE. */
  samples: Float32Array;
  /** The file's own sample rate. */
  sourceRate: number;
  /** Decoded length in seconds (source samples / source rate). */
  durationSec: number;
}

export type Format = 'wav' | 'mp3';

/** Leading bytes that tell the format: an MP3's first frame may follow up to 4 KiB of junk. */
const HEAD_BYTES = 8192;

/** The format the decoder reads a file starting with these bytes as, or null when neither. */
export function formatOf(head: Uint8Array): Format | null {
  return looksLikeWav(head) ? 'wav' : looksLikeMp3(head) ? 'mp3' : null;
}

/** The format the decoder reads the file as (the first HEAD_BYTES bytes), or null when neither. */
export async function readFormat(path: string): Promise<Format | null> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    return formatOf(await readAt(handle, 0, Math.min(size, HEAD_BYTES)));
  } finally {
    await handle.close();
  }
}

async function withFile<T>(
  path: string,
  fn: (h: FileHandle, size: number, format: Format) => Promise<T>,
): Promise<T> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw new AudioDecodeError('the path is a directory, not an audio file');
    throw err;
  }
  try {
    const { size } = await handle.stat();
    if (size === 0) throw new AudioDecodeError('the file is empty');
    const format = formatOf(await readAt(handle, 0, Math.min(size, HEAD_BYTES)));
    if (!format) throw new AudioDecodeError('not a WAV or MP3 file');
    return await fn(handle, size, format);
  } finally {
    await handle.close();
  }
}

/**
 * Duration in seconds from the container alone: WAV data bytes / block align
 * / rate, or MP3 frame count × samples per frame (minus gapless trim) / rate.
 * Exact, and fast even for hour-long files since nothing is decoded.
 */
export function measureDuration(path: string): Promise<number> {
  return withFile(path, async (handle, size, format) => {
    if (format === 'wav') {
      const info = await readWavInfo(handle, size);
      return info.frames / info.sampleRate;
    }
    const scan = await scanMp3(new FileWindow(handle, size));
    if (scan.totalSamples === 0) throw new AudioDecodeError('the MP3 file has no samples');
    return scan.totalSamples / scan.sampleRate;
  });
}

/**
 * Accumulates decoded chunks as 16 kHz mono. A mid-stream rate change (legal in
 * MP3, rare) closes the current converter and opens one for the new rate.
 */
class WorkingSignal {
  private resampler: StreamingResampler | null = null;
  private readonly out: SampleBuffer;
  /** Whole seconds are accumulated per rate segment from integer counts, so the duration is exact. */
  private doneSec = 0;
  private segmentSamples = 0;
  firstRate = 0;

  constructor(expectedWorkingSamples: number) {
    this.out = new SampleBuffer(expectedWorkingSamples + 16);
  }

  push(samples: Float32Array, rate: number): void {
    if (samples.length === 0) return;
    if (!this.resampler || this.resampler.inRate !== rate) {
      if (this.resampler) {
        this.out.append(this.resampler.finish());
        this.doneSec += this.segmentSamples / this.resampler.inRate;
      } else this.firstRate = rate;
      this.resampler = new StreamingResampler(rate, WORKING_RATE);
      this.segmentSamples = 0;
    }
    this.segmentSamples += samples.length;
    this.out.append(this.resampler.push(samples));
  }

  /** Duration of everything pushed: source samples / source rate, per rate segment. */
  get durationSec(): number {
    return this.doneSec + (this.resampler ? this.segmentSamples / this.resampler.inRate : 0);
  }

  finish(): Float32Array {
    if (this.resampler) this.out.append(this.resampler.finish());
    return this.out.samples();
  }
}

/**
 * Decodes a WAV or MP3 file to mono at WORKING_RATE, reading it in blocks and
 * downmixing/resampling as it goes: the only whole-file buffer is the 16 kHz
 * Float32 result (230 MB for 60 minutes).
 */
export function decodeToWorkingRate(path: string): Promise<DecodedAudio> {
  return withFile(path, async (handle, size, format) => {
    let signal: WorkingSignal;
    if (format === 'wav') {
      const info = await readWavInfo(handle, size);
      signal = new WorkingSignal(Math.ceil((info.frames * WORKING_RATE) / info.sampleRate));
      for await (const mono of decodeWavMono(handle, info)) signal.push(mono, info.sampleRate);
    } else {
      const scan = await scanMp3(new FileWindow(handle, size));
      signal = new WorkingSignal(Math.ceil((scan.totalSamples * WORKING_RATE) / scan.sampleRate));
      for await (const chunk of decodeMp3Mono(handle, scan.decoderStart, scan.audioEnd)) {
        signal.push(chunk.samples, chunk.sampleRate);
      }
    }
    const samples = signal.finish();
    if (samples.length === 0) {
      throw new AudioDecodeError(`the ${format.toUpperCase()} file has no samples`);
    }
    return { samples, sourceRate: signal.firstRate, durationSec: signal.durationSec };
  });
}
