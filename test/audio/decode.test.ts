import { open, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import wavefile from 'wavefile';
import { AudioDecodeError, decodeToWorkingRate, measureAudioDuration } from '../../src/audio/index.js';
import { decodeWavMono, readWavInfo } from '../../src/audio/wav-decode.js';
import { bestShiftedCorrelation, chunk, correlation, fmtPcm, riff, rmsEnvelope } from '../helpers/signal.js';
import { fixture, tempDirPerTest } from '../helpers/cli.js';
import { withLameTag, withoutFrameCount } from '../helpers/lame-tag.js';
import { makeMp3 } from '../helpers/mp3.js';

const RATE = 16000;

const scratch = tempDirPerTest('vredact-audio-decode-');
let reference: Float32Array;

beforeAll(async () => {
  reference = (await decodeToWorkingRate(fixture('speech-16bit.wav'))).samples;
});

/** 16-bit samples of the reference fixture as a buffer, for building new layouts. */
async function referencePcm16(): Promise<Buffer> {
  const wav = new wavefile.WaveFile(await readFile(fixture('speech-16bit.wav')));
  const samples = wav.getSamples(false, Int16Array) as unknown as Int16Array;
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
}

describe('WAV durations and content across layouts', () => {
  // The speech is 7 s (111 988 samples at 16 kHz = 6.99925 s); the stereo file is its first 3.5 s.
  const layouts: Array<[string, number]> = [
    ['speech-16bit.wav', 7.0],
    ['speech-8bit.wav', 7.0],
    ['speech-8k-ulaw.wav', 7.0],
    ['speech-8k-alaw.wav', 7.0],
    ['speech-24bit-stereo.wav', 3.5],
    ['speech-32bit.wav', 7.0],
    ['speech-float.wav', 7.0],
  ];

  it.each(layouts)('%s lasts %f s, measured and decoded alike', async (name, seconds) => {
    const measured = await measureAudioDuration(fixture(name));
    expect(measured).toBeCloseTo(seconds, 2);
    const decoded = await decodeToWorkingRate(fixture(name));
    expect(decoded.durationSec).toBeCloseTo(measured, 9);
    expect(Math.abs(decoded.samples.length / RATE - measured)).toBeLessThan(1 / RATE);
  });

  it.each(layouts.filter(([n]) => n !== 'speech-16bit.wav'))(
    '%s has the same loudness envelope as the 16-bit reference',
    async (name) => {
      const decoded = (await decodeToWorkingRate(fixture(name))).samples;
      const envA = rmsEnvelope(reference.subarray(0, decoded.length), RATE);
      const envB = rmsEnvelope(decoded, RATE);
      expect(correlation(envA, envB)).toBeGreaterThan(0.98);
      // Same level too (within 1 dB): a wrong scale or sign convention would show here.
      const ratio = envB.reduce((s, v) => s + v, 0) / envA.reduce((s, v) => s + v, 0);
      expect(Math.abs(20 * Math.log10(ratio))).toBeLessThan(1);
    },
  );

  it('decodes 16-bit, 32-bit EXTENSIBLE and float layouts to the same samples', async () => {
    for (const name of ['speech-32bit.wav', 'speech-float.wav']) {
      const other = (await decodeToWorkingRate(fixture(name))).samples;
      expect(other.length).toBe(reference.length);
      let maxDiff = 0;
      for (let i = 0; i < other.length; i++) maxDiff = Math.max(maxDiff, Math.abs(other[i]! - reference[i]!));
      expect(maxDiff).toBeLessThan(1e-4);
    }
  });

  it.each([
    ['speech-8k-ulaw.wav', 'fromMuLaw'],
    ['speech-8k-alaw.wav', 'fromALaw'],
    ['speech-8bit.wav', null],
    ['speech-24bit-stereo.wav', null],
  ] as const)('%s: native-rate samples match wavefile exactly', async (name, expand) => {
    const wav = new wavefile.WaveFile(await readFile(fixture(name)));
    if (expand) wav[expand]();
    const fmt = wav.fmt as { numChannels: number; bitsPerSample: number };
    const full = 2 ** (fmt.bitsPerSample - 1);
    // wavefile returns raw integers (8-bit unsigned); ours are floats in [-1, 1), downmixed.
    const offset = fmt.bitsPerSample === 8 ? 128 : 0;
    const theirs = wav.getSamples(true, Float64Array) as unknown as Float64Array;
    const handle = await open(fixture(name));
    try {
      const info = await readWavInfo(handle, (await handle.stat()).size);
      const ours: number[] = [];
      for await (const mono of decodeWavMono(handle, info)) ours.push(...mono);
      expect(ours.length * fmt.numChannels).toBe(theirs.length);
      let maxDiff = 0;
      for (let f = 0; f < ours.length; f++) {
        let sum = 0;
        for (let c = 0; c < fmt.numChannels; c++) sum += (theirs[f * fmt.numChannels + c]! - offset) / full;
        maxDiff = Math.max(maxDiff, Math.abs(ours[f]! - sum / fmt.numChannels));
      }
      expect(maxDiff).toBeLessThan(1e-7);
    } finally {
      await handle.close();
    }
  });
});

describe('generated WAV layouts', () => {
  it('skips LIST, fact and odd-sized chunks (with their pad byte) before the data', async () => {
    const pcm = await referencePcm16();
    const info = Buffer.concat([
      Buffer.from('INFO', 'ascii'),
      chunk('ISFT', Buffer.from('vredact test\0', 'ascii')),
    ]);
    const bytes = riff([
      chunk('fmt ', fmtPcm(1, RATE, 16)),
      chunk('LIST', info),
      chunk('odd ', Buffer.from([1, 2, 3])), // 3-byte body, then a pad byte
      chunk('fact', Buffer.alloc(4)),
      chunk('data', pcm),
      chunk('LIST', info), // chunks after the data must not be read as audio
    ]);
    const path = join(scratch.path, 'extra-chunks.wav');
    await writeFile(path, bytes);
    expect(await measureAudioDuration(path)).toBeCloseTo(reference.length / RATE, 9);
    const decoded = (await decodeToWorkingRate(path)).samples;
    expect(decoded).toEqual(reference);
  });

  it('reads an odd-length 8-bit data chunk followed by a pad byte and another chunk', async () => {
    const body = Buffer.alloc(8001, 128);
    for (let i = 0; i < body.length; i++)
      body[i] = 128 + Math.round(100 * Math.sin((2 * Math.PI * 440 * i) / 8000));
    const path = join(scratch.path, 'odd-data.wav');
    await writeFile(
      path,
      riff([chunk('fmt ', fmtPcm(1, 8000, 8)), chunk('data', body), chunk('LIST', Buffer.from('INFO'))]),
    );
    expect(await measureAudioDuration(path)).toBeCloseTo(8001 / 8000, 9);
    const decoded = await decodeToWorkingRate(path);
    expect(decoded.samples.length).toBe(Math.round((8001 * RATE) / 8000));
  });

  it('downmixes a 4-channel EXTENSIBLE float file by averaging the channels', async () => {
    const channels = 4;
    const n = reference.length;
    const data = Buffer.alloc(n * channels * 4);
    // Channels: s, s, −s, s → average s/2.
    const gains = [1, 1, -1, 1];
    for (let i = 0; i < n; i++) {
      for (let c = 0; c < channels; c++) data.writeFloatLE(reference[i]! * gains[c]!, (i * channels + c) * 4);
    }
    const fmt = Buffer.alloc(40);
    fmt.writeUInt16LE(0xfffe, 0);
    fmt.writeUInt16LE(channels, 2);
    fmt.writeUInt32LE(RATE, 4);
    fmt.writeUInt32LE(RATE * channels * 4, 8);
    fmt.writeUInt16LE(channels * 4, 12);
    fmt.writeUInt16LE(32, 14);
    fmt.writeUInt16LE(22, 16);
    fmt.writeUInt16LE(32, 18);
    fmt.writeUInt32LE(0x33, 20);
    Buffer.from('0300000000001000800000aa00389b71', 'hex').copy(fmt, 24); // KSDATAFORMAT_SUBTYPE_IEEE_FLOAT
    const path = join(scratch.path, 'quad-float.wav');
    await writeFile(path, riff([chunk('fmt ', fmt), chunk('data', data)]));
    const decoded = (await decodeToWorkingRate(path)).samples;
    expect(decoded.length).toBe(n);
    let maxDiff = 0;
    for (let i = 0; i < n; i++) maxDiff = Math.max(maxDiff, Math.abs(decoded[i]! - reference[i]! / 2));
    expect(maxDiff).toBeLessThan(1e-6);
  });

  it('reads to the end of the file when the data size was never filled in (0xFFFFFFFF)', async () => {
    const pcm = await referencePcm16();
    const bytes = riff([chunk('fmt ', fmtPcm(1, RATE, 16)), chunk('data', pcm)]);
    bytes.writeUInt32LE(0xffffffff, 40);
    const path = join(scratch.path, 'unfinished.wav');
    await writeFile(path, bytes);
    expect(await measureAudioDuration(path)).toBeCloseTo(reference.length / RATE, 9);
  });

  it('rejects an unsupported encoding and a WAV without data with a clear reason', async () => {
    const adpcm = fmtPcm(1, 8000, 4);
    adpcm.writeUInt16LE(0x0011, 0); // IMA ADPCM
    adpcm.writeUInt16LE(256, 12);
    const p1 = join(scratch.path, 'adpcm.wav');
    await writeFile(p1, riff([chunk('fmt ', adpcm), chunk('data', Buffer.alloc(1024))]));
    await expect(measureAudioDuration(p1)).rejects.toThrow(/unsupported encoding \(format tag 0x0011\)/);

    const p2 = join(scratch.path, 'no-data.wav');
    await writeFile(p2, riff([chunk('fmt ', fmtPcm(1, RATE, 16)), chunk('LIST', Buffer.from('INFO'))]));
    await expect(decodeToWorkingRate(p2)).rejects.toBeInstanceOf(AudioDecodeError);
    await expect(decodeToWorkingRate(p2)).rejects.toThrow('the WAV file has no data chunk');
  });
});

describe('MP3', () => {
  // Frame counts from `ffprobe -count_frames`. Files with a LAME tag are trimmed to the
  // true 7 s (gapless); the others keep the encoder delay and final-frame padding.
  const mp3s: Array<[string, number, number, boolean]> = [
    ['speech-cbr.mp3', 32000, 1152, true],
    ['speech-vbr-xing.mp3', 22050, 576, true],
    ['speech-mpeg2.mp3', 16000, 576, false],
    ['speech-mpeg25.mp3', 8000, 576, false],
    ['speech-vbr-noxing.mp3', 22050, 576, false],
  ];
  const frameCounts: Record<string, number> = {
    'speech-mpeg2.mp3': 197,
    'speech-mpeg25.mp3': 100,
    'speech-vbr-noxing.mp3': 270,
  };

  it.each(mp3s)('%s: duration by frame walking matches decoding', async (name, rate, spf, gapless) => {
    const measured = await measureAudioDuration(fixture(name));
    const decoded = await decodeToWorkingRate(fixture(name));
    expect(decoded.sourceRate).toBe(rate);
    expect(decoded.durationSec).toBeCloseTo(measured, 9);
    if (gapless) {
      expect(measured).toBeCloseTo(7.0, 2);
    } else {
      expect(measured).toBeCloseTo((frameCounts[name]! * spf) / rate, 9);
      // Encoder delay + padding: never more than ~2 frames plus the 1105-sample LAME/decoder delay.
      expect(measured).toBeGreaterThanOrEqual(6.999);
      expect(measured - 7.0).toBeLessThan((2 * spf + 1105) / rate);
    }
  });

  it.each(mp3s)('%s sounds like the WAV reference', async (name) => {
    const decoded = (await decodeToWorkingRate(fixture(name))).samples;
    // Layouts without gapless info are shifted by the codec delay: allow ±300 ms.
    const r = bestShiftedCorrelation(rmsEnvelope(reference, RATE), rmsEnvelope(decoded, RATE), 15);
    expect(r).toBeGreaterThan(0.95);
  });

  it('skips an ID3v2 tag at the start and an ID3v1 tag at the end', async () => {
    const plain = await readFile(fixture('speech-cbr.mp3'));
    const title = Buffer.from('\u0003The quick brown fox \u00ff\u00fb fake sync', 'latin1');
    const frame = Buffer.alloc(10);
    frame.write('TIT2', 0, 'ascii');
    frame.writeUInt32BE(title.length, 4);
    const body = Buffer.concat([frame, title, Buffer.alloc(1000)]); // with padding
    const header = Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 0]);
    const size = body.length;
    header[6] = (size >> 21) & 0x7f;
    header[7] = (size >> 14) & 0x7f;
    header[8] = (size >> 7) & 0x7f;
    header[9] = size & 0x7f;
    const id3v1 = Buffer.alloc(128);
    id3v1.write('TAG', 0, 'ascii');
    const path = join(scratch.path, 'tagged.mp3');
    await writeFile(path, Buffer.concat([header, body, plain, id3v1]));

    expect(await measureAudioDuration(path)).toBeCloseTo(
      await measureAudioDuration(fixture('speech-cbr.mp3')),
      9,
    );
    const tagged = (await decodeToWorkingRate(path)).samples;
    const untagged = (await decodeToWorkingRate(fixture('speech-cbr.mp3'))).samples;
    expect(tagged).toEqual(untagged);
  });

  it('decodes a header frame without gapless figures (Xing, Info, VBRI) to as many samples as counted, as ffmpeg does', async () => {
    // 100 frames of 576 samples at 8 kHz. Without a LAME extension ffmpeg trims nothing; mpg123 cut
    // its 529-sample decoder delay all the same, so the sandbox's result was 66 ms short.
    const frames = 100;
    const info = makeMp3({ frames, infoHeader: 'Info' });
    const cases: Array<[string, Buffer, number]> = [
      ['info.mp3', info, frames * 576],
      ['xing.mp3', makeMp3({ frames, infoHeader: 'Xing', bitrate: (i) => (i % 2 ? 8 : 16) }), frames * 576],
      ['vbri.mp3', makeMp3({ frames, infoHeader: 'VBRI' }), frames * 576],
      ['lame-unnamed.mp3', withLameTag(info, 576, 1000, '\0\0\0\0'), frames * 576],
      // A LAME tag's figures are trimmed, by both.
      ['lame.mp3', withLameTag(info, 576, 1000), frames * 576 - 576 - 1000],
      // With a padding under the decoder's delay of 529 samples, the end is cut at the last one decoded.
      ['lame-short-padding.mp3', withLameTag(info, 576, 100), frames * 576 - 576 - 529],
      // Without a frame count, mpg123 trims nothing.
      [
        'lame-no-count.mp3',
        withLameTag(withoutFrameCount(makeMp3({ frames, infoHeader: 'Xing' })), 576, 1000),
        frames * 576,
      ],
    ];
    for (const [name, bytes, samples] of cases) {
      const path = join(scratch.path, name);
      await writeFile(path, bytes);
      expect(await measureAudioDuration(path), name).toBe(samples / 8000);
      const decoded = await decodeToWorkingRate(path);
      expect(decoded.durationSec, name).toBe(samples / 8000);
      expect(decoded.samples.length, name).toBe(samples * 2);
    }
  });

  it('decodes no further than the last frame counted: garbage at the end with a false frame of another rate', async () => {
    // A crashed writer's garbage after 100 frames at 8 kHz held what reads as two frames at 12 kHz:
    // fed to the decoder in the same block, every sample was labelled 12 kHz, and the result lasted
    // 4.83 s for an input measured at 7.2 s.
    const audio = makeMp3({ frames: 100 });
    const other = makeMp3({ frames: 2, sampleRate: 12000 });
    const path = join(scratch.path, 'garbage-end.mp3');
    await writeFile(path, Buffer.concat([audio, Buffer.alloc(37, 0x55), other, Buffer.alloc(300, 0x5a)]));
    expect(await measureAudioDuration(path)).toBe(7.2);
    const decoded = await decodeToWorkingRate(path);
    expect(decoded.sourceRate).toBe(8000);
    expect(decoded.durationSec).toBe(7.2);
    expect(decoded.samples.length).toBe(7.2 * 16000);
  });

  it('measures an hour-long MP3 exactly, by counting frames', async () => {
    // 515 copies of the CBR fixture's audio frames (its Info frame dropped): 515 × 196 frames.
    const frames = (await readFile(fixture('speech-cbr.mp3'))).subarray(216);
    const path = join(scratch.path, 'hour.mp3');
    await writeFile(path, Buffer.concat(Array.from({ length: 515 }, () => frames)));
    expect(await measureAudioDuration(path)).toBeCloseTo((515 * 196 * 1152) / 32000, 6);
  });
});

describe('undecodable files', () => {
  it.each([
    ['empty.wav', 'the file is empty'],
    ['empty.mp3', 'the file is empty'],
    ['not-audio.wav', 'not a WAV or MP3 file'],
    ['header-only.wav', 'the WAV file has no samples'],
  ])('%s → AudioDecodeError (%s)', async (name, reason) => {
    for (const op of [measureAudioDuration, decodeToWorkingRate]) {
      const err = await op(fixture(name)).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(AudioDecodeError);
      expect((err as Error).message).toBe(reason);
    }
  });

  it('rejects an ID3 tag with no audio frames after it', async () => {
    const header = Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 20]);
    const path = join(scratch.path, 'tag-only.mp3');
    await writeFile(path, Buffer.concat([header, Buffer.alloc(20), Buffer.from('just text afterwards')]));
    await expect(measureAudioDuration(path)).rejects.toThrow('the MP3 file has no audio frames');
  });
});
