/** Writing the output: 16-bit PCM mono WAV, streamed to disk block by block. */
import { type FileHandle, open } from 'node:fs/promises';

export const WAV_HEADER_BYTES = 44;

/** Canonical 44-byte header for `samples` 16-bit mono samples at `sampleRate`. */
export function pcm16MonoHeader(samples: number, sampleRate: number): Buffer {
  const h = Buffer.alloc(WAV_HEADER_BYTES);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + samples * 2, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(samples * 2, 40);
  return h;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Float [-1, 1] → little-endian int16 bytes; anything outside is clamped (the limiter should prevent it). */
export function toPcm16(samples: Float32Array): Buffer {
  const pcm = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const v = samples[i]!;
    const c = v > 1 ? 1 : v < -1 ? -1 : Number.isNaN(v) ? 0 : v;
    pcm[i] = Math.round(c * 32767);
  }
  const bytes = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  if (!LITTLE_ENDIAN) bytes.swap16();
  return bytes;
}

export class WavWriter {
  private written = 0;

  private constructor(
    private readonly handle: FileHandle,
    private readonly sampleRate: number,
  ) {}

  static async create(path: string, sampleRate: number): Promise<WavWriter> {
    const handle = await open(path, 'w');
    const w = new WavWriter(handle, sampleRate);
    await handle.write(pcm16MonoHeader(0, sampleRate), 0, WAV_HEADER_BYTES, 0);
    return w;
  }

  get samplesWritten(): number {
    return this.written;
  }

  async write(samples: Float32Array): Promise<void> {
    if (samples.length === 0) return;
    const bytes = toPcm16(samples);
    await this.handle.write(bytes, 0, bytes.length, WAV_HEADER_BYTES + this.written * 2);
    this.written += samples.length;
  }

  /** Rewrites the header with the final sizes and closes the file. */
  async close(): Promise<void> {
    try {
      await this.handle.write(pcm16MonoHeader(this.written, this.sampleRate), 0, WAV_HEADER_BYTES, 0);
    } finally {
      await this.handle.close();
    }
  }

  /** Closes without finalising (the caller deletes the file). */
  async abort(): Promise<void> {
    await this.handle.close();
  }
}
