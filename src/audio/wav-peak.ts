/**
 * The loudest sample of a WAV file, on any channel (a mono downmix would cancel channels in
 * opposite phase): what tells a file of digital silence from one with something to hear.
 */
import { open } from 'node:fs/promises';
import { readChunks } from './file-io.js';
import { readWavInfo, sampleReader } from './wav-decode.js';

/** The largest magnitude of any sample, from 0 to 1. Throws AudioDecodeError for a file it cannot read. */
export async function wavPeak(path: string): Promise<number> {
  const handle = await open(path, 'r');
  try {
    const info = await readWavInfo(handle, (await handle.stat()).size);
    const read = sampleReader(info);
    const step = info.bytesPerSample;
    const chunkBytes = Math.max(1, Math.floor((256 * 1024) / info.blockAlign)) * info.blockAlign;
    let peak = 0;
    for await (const bytes of readChunks(handle, info.dataOffset, info.dataBytes, chunkBytes)) {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      for (let at = 0; at + step <= bytes.length; at += step) peak = Math.max(peak, Math.abs(read(view, at)));
    }
    return peak;
  } finally {
    await handle.close();
  }
}
