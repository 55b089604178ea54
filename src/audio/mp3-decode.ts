/**
 * MP3 decoding through mpg123 compiled to WebAssembly (`mpg123-decoder`),
 * fed the file in fixed-size blocks so memory does not grow with the file.
 */
import type { FileHandle } from 'node:fs/promises';
import { MPEGDecoder } from 'mpg123-decoder';
import { readChunks } from './file-io.js';

export interface MonoChunk {
  samples: Float32Array;
  sampleRate: number;
}

function downmix(channelData: Float32Array[], count: number): Float32Array {
  const [left, right] = channelData;
  if (!left) return new Float32Array(0);
  // mpg123 always hands back two channels (a mono stream is duplicated); averaging
  // is then exact for mono and the usual downmix for stereo.
  if (!right) return left.slice(0, count);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = (left[i]! + right[i]!) * 0.5;
  return out;
}

/**
 * Yields mono chunks at the stream's own rate, from byte `start` (the first frame) to byte `end` (just
 * after the last frame counted).
 */
export async function* decodeMp3Mono(
  handle: FileHandle,
  start: number,
  end: number,
): AsyncGenerator<MonoChunk> {
  // Gapless mode (the default) trims the encoder delay/padding announced in a LAME tag.
  const decoder = new MPEGDecoder({ enableGapless: true });
  await decoder.ready;
  try {
    for await (const bytes of readChunks(handle, start, end - start, 64 * 1024)) {
      const r = decoder.decode(bytes);
      if (r.samplesDecoded > 0) {
        yield { samples: downmix(r.channelData, r.samplesDecoded), sampleRate: r.sampleRate };
      }
    }
  } finally {
    decoder.free();
  }
}
