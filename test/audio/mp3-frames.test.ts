import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AudioDecodeError } from '../../src/audio/errors.js';
import { looksLikeMp3, scanMp3File } from '../../src/audio/mp3-frames.js';
import { parseMp3Header } from '../../src/audio/mp3-header.js';
import { FIXTURES, tempDir } from '../helpers/cli.js';
import { framesDuration, MP3_LAYOUT_CASES, makeMp3 } from '../helpers/mp3.js';
import { withLameTag, withoutFrameCount } from '../helpers/lame-tag.js';

let dir: { path: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  dir = await tempDir('vredact-mp3-frames-');
});
afterAll(async () => {
  await dir.cleanup();
});

async function scanBuffer(name: string, data: Buffer | string) {
  const path = join(dir.path, name);
  await writeFile(path, data);
  return scanMp3File(path);
}

describe('parseMp3Header', () => {
  it('parses Layer III of every MPEG version', () => {
    // MPEG-1, 128 kbit/s, 44.1 kHz, padded, joint stereo.
    expect(parseMp3Header(0xff, 0xfb, 0x92, 0x40)).toMatchObject({
      version: 1,
      layer: 3,
      sampleRate: 44100,
      channels: 2,
      frameBytes: 418,
      samplesPerFrame: 1152,
    });
    // MPEG-2, 8 kbit/s, 16 kHz, mono.
    expect(parseMp3Header(0xff, 0xf3, 0x18, 0xc0)).toMatchObject({
      version: 2,
      layer: 3,
      sampleRate: 16000,
      channels: 1,
      frameBytes: 36,
      samplesPerFrame: 576,
    });
    // MPEG-2.5, 8 kbit/s, 8 kHz, mono: the smallest frame the test generator makes.
    expect(parseMp3Header(0xff, 0xe3, 0x18, 0xc0)).toMatchObject({
      version: 2.5,
      layer: 3,
      sampleRate: 8000,
      frameBytes: 72,
      samplesPerFrame: 576,
    });
  });

  it('recognises Layers I and II, so that callers can name them', () => {
    expect(parseMp3Header(0xff, 0xfd, 0x80, 0xc0)).toMatchObject({ version: 1, layer: 2, frameBytes: 417 });
    expect(parseMp3Header(0xff, 0xff, 0x80, 0xc0)).toMatchObject({
      version: 1,
      layer: 1,
      frameBytes: 276,
      samplesPerFrame: 384,
    });
  });

  it('rejects free format, reserved values and non-sync bytes', () => {
    expect(parseMp3Header(0xff, 0xfb, 0x00, 0x40)).toBeNull(); // free format: no length in the header
    expect(parseMp3Header(0xff, 0xfb, 0xf0, 0x40)).toBeNull(); // bitrate index 15
    expect(parseMp3Header(0xff, 0xfb, 0x9c, 0x40)).toBeNull(); // reserved sample rate
    expect(parseMp3Header(0xff, 0xeb, 0x90, 0x40)).toBeNull(); // reserved version
    expect(parseMp3Header(0xff, 0xf9, 0x90, 0x40)).toBeNull(); // reserved layer
    expect(parseMp3Header(0xff, 0xfb, 0x90, 0x42)).toBeNull(); // reserved emphasis
    expect(parseMp3Header(0x49, 0x44, 0x33, 0x04)).toBeNull(); // "ID3"
  });
});

describe('scanMp3File', () => {
  it('counts MPEG-1 and MPEG-2 frames, with tags and an info header, exactly', async () => {
    for (const [index, options] of MP3_LAYOUT_CASES.entries()) {
      const scan = await scanBuffer(`case-${index}.mp3`, makeMp3(options));
      expect(scan.audioFrames).toBe(options.frames);
      expect(scan.version).toBe(options.version ?? 2.5);
      expect(scan.layer).toBe(3);
      expect(scan.sampleRate).toBe(options.sampleRate ?? 8000);
      expect(scan.totalSamples / scan.sampleRate).toBeCloseTo(
        framesDuration(options.frames, options.version, options.sampleRate),
        9,
      );
      expect(scan.infoHeader).toBe(options.infoHeader);
      // An info frame without a LAME extension trims nothing.
      expect([scan.encoderDelay, scan.encoderPadding]).toEqual([0, 0]);
      // The ID3v2 tag is skipped as a whole, not resynced through.
      expect(scan.firstFrame).toBe(options.id3v2Bytes === undefined ? 0 : 10 + options.id3v2Bytes);
    }
  });

  it('counts a VBR file without a Xing header whose first frames share a bitrate, exactly', async () => {
    const frames = 2000;
    const scan = await scanBuffer('vbr-trap.mp3', makeMp3({ frames, bitrate: (i) => (i < 10 ? 64 : 8) }));
    expect(scan.infoHeader).toBeUndefined();
    expect(scan.audioFrames).toBe(frames);
    expect(scan.totalSamples).toBe(frames * 576);
  });

  it('trims the encoder delay and padding of a LAME tag, and only when an encoder name vouches for it', async () => {
    const frames = 500;
    const plain = makeMp3({ frames, infoHeader: 'Info' });
    const trusted = await scanBuffer('lame.mp3', withLameTag(plain, 576, 1000));
    expect(trusted).toMatchObject({ infoHeader: 'Info', encoderDelay: 576, encoderPadding: 1000 });
    expect(trusted.audioFrames).toBe(frames);
    expect(trusted.totalSamples).toBe(frames * 576 - 576 - 1000);
    const untrusted = await scanBuffer('lame-noname.mp3', withLameTag(plain, 576, 1000, '\0\0\0\0'));
    expect(untrusted).toMatchObject({ infoHeader: 'Info', encoderDelay: 0, encoderPadding: 0 });
    expect(untrusted.totalSamples).toBe(frames * 576);
  });

  it('trims at least the decoder delay at the end, as real decoders do, when the padding is under 529 samples', async () => {
    // The decoders skip delay + 529 samples at the start and cut the end at frames × 576 + 529 −
    // padding, which is past the last sample decoded when the padding is under 529 (ffmpeg's
    // libavformat/mp3dec.c, mpg123's frame_gapless_init): nothing is cut there. Before, the scan
    // counted frames × 576 − delay − padding, up to 529 samples more than the sandbox decoded.
    const frames = 500;
    const plain = makeMp3({ frames, infoHeader: 'Info' });
    for (const [padding, samples] of [
      [0, frames * 576 - 576 - 529],
      [100, frames * 576 - 576 - 529],
      [528, frames * 576 - 576 - 529],
      [529, frames * 576 - 576 - 529],
      [530, frames * 576 - 576 - 530],
    ] as const) {
      const scan = await scanBuffer(`pad-${padding}.mp3`, withLameTag(plain, 576, padding));
      expect(scan, `padding ${padding}`).toMatchObject({ encoderDelay: 576, encoderPadding: padding });
      expect(scan.totalSamples, `padding ${padding}`).toBe(samples);
    }
  });

  it('trims nothing for a LAME tag whose Xing frame has no frame count, as mpg123 (the sandbox) does', async () => {
    // mpg123 trims only with a frame count ("all or nothing"); ffmpeg would still skip delay + 529.
    const frames = 500;
    const xing = makeMp3({ frames, infoHeader: 'Xing' });
    const scan = await scanBuffer('no-count.mp3', withLameTag(withoutFrameCount(xing), 576, 1000));
    expect(scan).toMatchObject({
      infoHeader: 'Xing',
      audioFrames: frames,
      encoderDelay: 0,
      encoderPadding: 0,
    });
    expect(scan.totalSamples).toBe(frames * 576);
  });

  it('does not count a VBRI frame as audio, as it does not a Xing/Info frame, nor trims its delay', async () => {
    for (const options of [
      { frames: 300 },
      { frames: 300, version: 1, sampleRate: 44100, bitrate: 128 },
    ] as const) {
      const plain = await scanBuffer('plain.mp3', makeMp3(options));
      const vbri = await scanBuffer('vbri.mp3', makeMp3({ ...options, infoHeader: 'VBRI' }));
      expect(vbri).toMatchObject({ infoHeader: 'VBRI', audioFrames: options.frames, encoderDelay: 0 });
      // The same audio without the VBRI frame, to the sample: 26 ms (MPEG-1) or 72 ms (MPEG-2.5) less before.
      expect(vbri.totalSamples).toBe(plain.totalSamples);
      expect(vbri.totalSamples).toBe(options.frames * vbri.samplesPerFrame);
    }
  });

  it('finds the LAME tag of a file whose frames carry a CRC, two bytes later', async () => {
    const frames = 500;
    const plain = makeMp3({ frames, infoHeader: 'Info' });
    // `lame -p`: each header's protection bit cleared, a 16-bit CRC after it, the tag moved along.
    const crc = Buffer.from(plain);
    for (let at = 0; at + 1 < crc.length; at++) {
      if (crc[at] === 0xff && (crc[at + 1]! & 0xe0) === 0xe0) crc[at + 1] = crc[at + 1]! & 0xfe;
    }
    const tag = crc.indexOf('Info', 0, 'latin1');
    crc.copy(crc, tag + 2, tag, tag + 40);
    crc.writeUInt16BE(0x1234, tag);
    const scan = await scanBuffer('crc.mp3', withLameTag(crc, 576, 1000));
    expect(scan).toMatchObject({ infoHeader: 'Info', encoderDelay: 576, encoderPadding: 1000 });
    expect(scan.audioFrames).toBe(frames);
    expect(scan.totalSamples).toBe(frames * 576 - 576 - 1000);
  });

  it.each([
    // Figures from `ffprobe -count_frames` and the files' LAME tags.
    ['speech-cbr.mp3', 1, 32000, 196, 'Info', 576, 1241],
    ['speech-vbr-xing.mp3', 2, 22050, 270, 'Xing', 576, 611],
    ['speech-vbr-noxing.mp3', 2, 22050, 270, undefined, 0, 0],
    ['speech-mpeg2.mp3', 2, 16000, 197, undefined, 0, 0],
    ['speech-mpeg25.mp3', 2.5, 8000, 100, undefined, 0, 0],
  ])(
    '%s: MPEG-%s at %i Hz, %i audio frames, %s header',
    async (name, version, rate, frames, info, delay, pad) => {
      const scan = await scanMp3File(join(FIXTURES, name));
      expect(scan).toMatchObject({
        version,
        layer: 3,
        sampleRate: rate,
        audioFrames: frames,
        infoHeader: info,
        encoderDelay: delay,
        encoderPadding: pad,
      });
      expect(scan.totalSamples).toBe(frames * scan.samplesPerFrame - delay - pad);
    },
  );

  it('skips junk between frames', async () => {
    const a = makeMp3({ frames: 50 });
    const b = makeMp3({ frames: 30 });
    const junk = Buffer.from([0x67, 0x61, 0x72, 0x62, 0xff, 0xe0, 0xff, 0xfb, 0x90, 0x00, 0x20]);
    const scan = await scanBuffer('junk.mp3', Buffer.concat([a, junk, b]));
    expect(scan.audioFrames).toBe(80);
    expect(scan.totalSamples).toBe(80 * 576);
  });

  it('counts the frames of a Layer II stream as Layer II', async () => {
    // MPEG-1 Layer II, 128 kbit/s, 44.1 kHz, mono: 417-byte frames of 1152 samples.
    const frame = Buffer.alloc(417);
    frame.set([0xff, 0xfd, 0x80, 0xc0]);
    const scan = await scanBuffer('layer2.mp3', Buffer.concat(Array.from({ length: 20 }, () => frame)));
    expect(scan).toMatchObject({ version: 1, layer: 2, audioFrames: 20, totalSamples: 20 * 1152 });
  });

  it('finds no frames in text, nor after a lone ID3 tag', async () => {
    const text = 'hello, this is not audio at all\n'.repeat(100);
    expect(looksLikeMp3(Buffer.from(text))).toBe(false);
    await expect(scanBuffer('text.mp3', text)).rejects.toThrow(AudioDecodeError);
    await expect(scanBuffer('text.mp3', text)).rejects.toThrow('not a WAV or MP3 file');
    const tagged = Buffer.concat([makeMp3({ frames: 0, id3v2Bytes: 20 }), Buffer.from(text)]);
    await expect(scanBuffer('tag-only.mp3', tagged)).rejects.toThrow('the MP3 file has no audio frames');
    await expect(scanBuffer('empty.mp3', Buffer.alloc(0))).rejects.toThrow(AudioDecodeError);
  });
});
