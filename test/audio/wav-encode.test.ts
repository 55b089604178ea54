/** The output WAV: its header, the float → 16-bit conversion, and the streamed writer read back by our own readers. */
import { open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WavReader } from '../../src/audio/riff.js';
import { decodeWavMono, readWavInfo } from '../../src/audio/wav-decode.js';
import { pcm16MonoHeader, toPcm16, WAV_HEADER_BYTES, WavWriter } from '../../src/audio/wav-encode.js';
import { tempDirPerTest } from '../helpers/cli.js';

const scratch = tempDirPerTest('vredact-wav-encode-');

/** The file's samples as our decoder reads them, concatenated. */
async function decodeFile(path: string): Promise<{ sampleRate: number; samples: Float32Array }> {
  const handle = await open(path, 'r');
  try {
    const info = await readWavInfo(handle, (await handle.stat()).size);
    const parts: Float32Array[] = [];
    for await (const part of decodeWavMono(handle, info)) parts.push(part);
    const samples = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      samples.set(p, at);
      at += p.length;
    }
    return { sampleRate: info.sampleRate, samples };
  } finally {
    await handle.close();
  }
}

describe('pcm16MonoHeader', () => {
  it('writes the canonical 44-byte PCM mono header', () => {
    const h = pcm16MonoHeader(1000, 16000);
    expect(h).toHaveLength(WAV_HEADER_BYTES);
    expect(h.toString('latin1', 0, 4)).toBe('RIFF');
    expect(h.readUInt32LE(4)).toBe(36 + 2000); // everything after these 8 bytes
    expect(h.toString('latin1', 8, 16)).toBe('WAVEfmt ');
    expect(h.readUInt32LE(16)).toBe(16);
    expect(h.readUInt16LE(20)).toBe(1); // PCM
    expect(h.readUInt16LE(22)).toBe(1); // channels
    expect(h.readUInt32LE(24)).toBe(16000);
    expect(h.readUInt32LE(28)).toBe(32000); // byte rate
    expect(h.readUInt16LE(32)).toBe(2); // block align
    expect(h.readUInt16LE(34)).toBe(16);
    expect(h.toString('latin1', 36, 40)).toBe('data');
    expect(h.readUInt32LE(40)).toBe(2000);
  });

  it('describes an odd number of samples and an empty file exactly', () => {
    expect(pcm16MonoHeader(3, 8000).readUInt32LE(40)).toBe(6);
    expect(pcm16MonoHeader(3, 8000).readUInt32LE(4)).toBe(42);
    expect(pcm16MonoHeader(0, 44100).readUInt32LE(4)).toBe(36);
    expect(pcm16MonoHeader(0, 44100).readUInt32LE(40)).toBe(0);
    expect(pcm16MonoHeader(0, 44100).readUInt32LE(28)).toBe(88200);
  });
});

describe('toPcm16', () => {
  const int16 = (bytes: Buffer): number[] =>
    Array.from({ length: bytes.length / 2 }, (_, i) => bytes.readInt16LE(i * 2));

  it('scales [-1, 1] to little-endian 16-bit, rounding to the nearest step', () => {
    const bytes = toPcm16(Float32Array.from([0, 1, -1, 0.5, -0.5, 1 / 32767, 0.4 / 32767, 0.6 / 32767]));
    expect(bytes).toHaveLength(16);
    expect(int16(bytes)).toEqual([0, 32767, -32767, 16384, -16383, 1, 0, 1]);
    // Byte order is fixed by the format, whatever the machine's.
    expect([...toPcm16(Float32Array.from([1]))]).toEqual([0xff, 0x7f]);
  });

  it('clamps what is out of range and turns NaN into silence', () => {
    const bytes = toPcm16(Float32Array.from([1.5, -7, Infinity, -Infinity, NaN]));
    expect(int16(bytes)).toEqual([32767, -32767, 32767, -32767, 0]);
  });

  it('gives no bytes for no samples', () => {
    expect(toPcm16(new Float32Array(0))).toHaveLength(0);
  });
});

describe('WavWriter', () => {
  it('streams blocks of any length into a file our readers decode to the same samples', async () => {
    const path = join(scratch.path, 'out.wav');
    const rate = 16000;
    const total = 4001; // odd, so the data chunk has an odd number of samples
    const signal = Float32Array.from(
      { length: total },
      (_, i) => 0.8 * Math.sin((2 * Math.PI * 440 * i) / rate),
    );
    const writer = await WavWriter.create(path, rate);
    let at = 0;
    for (const block of [1, 0, 999, 2048, 953]) {
      await writer.write(signal.subarray(at, at + block));
      at += block;
    }
    expect(at).toBe(total);
    expect(writer.samplesWritten).toBe(total);
    await writer.close();

    const bytes = await readFile(path);
    expect(bytes).toHaveLength(WAV_HEADER_BYTES + total * 2);
    expect(bytes.subarray(0, WAV_HEADER_BYTES)).toEqual(pcm16MonoHeader(total, rate));
    expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8);

    const decoded = await decodeFile(path);
    expect(decoded.sampleRate).toBe(rate);
    expect(decoded.samples).toHaveLength(total);
    // Exactly the quantised input: what toPcm16 made, divided back by the decoder's 32768.
    const expected = toPcm16(signal);
    for (let i = 0; i < total; i++) expect(decoded.samples[i]).toBe(expected.readInt16LE(i * 2) / 32768);

    const reader = new WavReader({ strict: true });
    reader.push(bytes);
    expect(reader.finish()).toMatchObject({
      format: { audioFormat: 1, channels: 1, sampleRate: rate, blockAlign: 2, bitsPerSample: 16 },
      declaredDataBytes: total * 2,
      dataBytes: total * 2,
      durationSec: total / rate,
    });
  });

  it('closed with nothing written, leaves a header-only WAV that declares no audio', async () => {
    const path = join(scratch.path, 'empty.wav');
    const writer = await WavWriter.create(path, 8000);
    await writer.write(new Float32Array(0));
    await writer.close();
    const bytes = await readFile(path);
    expect(bytes).toEqual(pcm16MonoHeader(0, 8000));
  });

  it('aborted, does not claim the samples it wrote (the header still declares none)', async () => {
    const path = join(scratch.path, 'aborted.wav');
    const writer = await WavWriter.create(path, 16000);
    await writer.write(new Float32Array(100).fill(0.25));
    await writer.abort();
    const bytes = await readFile(path);
    expect(bytes.readUInt32LE(40)).toBe(0);
    expect((await stat(path)).size).toBe(WAV_HEADER_BYTES + 200);
    // A strict reader of the result sees an unfinished header, not a valid 100-sample file.
    const reader = new WavReader({ strict: true });
    reader.push(bytes);
    expect(reader.finish().declaredDataBytes).toBe(0);
  });

  it('replaces a file already at the path', async () => {
    const path = join(scratch.path, 'again.wav');
    const first = await WavWriter.create(path, 16000);
    await first.write(new Float32Array(5000));
    await first.close();
    const second = await WavWriter.create(path, 16000);
    await second.write(new Float32Array(10));
    await second.close();
    expect((await stat(path)).size).toBe(WAV_HEADER_BYTES + 20);
  });
});
