import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseFile } from 'music-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureAudioDuration } from '../../src/audio/index.js';
import { DEFAULT_MAX_DURATION_SECONDS, DEFAULT_MAX_SIZE } from '../../src/redact/options.js';
import { probeFile } from '../../src/redact/probe.js';
import { FIXTURES, tempDir } from '../helpers/cli.js';
import { framesDuration, framesFor, MP3_LAYOUT_CASES, makeMp3, makeWav, writeMp3 } from '../helpers/mp3.js';
import { withLameTag } from '../helpers/lame-tag.js';
import { chunk, fmtPcm, riff } from '../helpers/signal.js';
import { rf64 } from '../helpers/odd-audio.js';

const limits = { maxSize: DEFAULT_MAX_SIZE, maxDurationSec: DEFAULT_MAX_DURATION_SECONDS };
let dir: { path: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  dir = await tempDir('vredact-probe-');
});
afterAll(async () => {
  await dir.cleanup();
});

describe('probeFile on the fixtures', () => {
  it.each([
    ['speech-16bit.wav', 'WAV', 7],
    ['speech-8bit.wav', 'WAV', 7],
    ['speech-8k-ulaw.wav', 'WAV', 7],
    ['speech-8k-alaw.wav', 'WAV', 7],
    ['speech-24bit-stereo.wav', 'WAV', 3.5],
    ['speech-32bit.wav', 'WAV', 7],
    ['speech-float.wav', 'WAV', 7],
    ['speech-cbr.mp3', 'MP3', 7],
    ['speech-mpeg2.mp3', 'MP3', 7],
    ['speech-mpeg25.mp3', 'MP3', 7],
    ['speech-vbr-xing.mp3', 'MP3', 7],
    ['speech-vbr-noxing.mp3', 'MP3', 7],
  ])('accepts %s as %s of about %ss', async (name, format, seconds) => {
    const result = await probeFile(join(FIXTURES, name), limits);
    expect(result).toMatchObject({ ok: true, format });
    if (!result.ok) return;
    expect(result.durationSec).toBeGreaterThan(seconds - 0.3);
    expect(result.durationSec).toBeLessThan(seconds + 0.3);
  });

  it.each([
    'speech-cbr.mp3',
    'speech-mpeg2.mp3',
    'speech-mpeg25.mp3',
    'speech-vbr-xing.mp3',
    'speech-vbr-noxing.mp3',
  ])("%s: the duration is the sandbox's own figure, to the last bit", async (name) => {
    const result = await probeFile(join(FIXTURES, name), limits);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.durationSec).toBe(await measureAudioDuration(join(FIXTURES, name)));
  });

  it('trims the encoder delay and padding of a LAME tag, as a gapless decoder does', async () => {
    // 196 frames of 1152 samples (7.056 s) less 576 + 1241 samples; 270 × 576 (7.0531 s) less 576 + 611.
    const cbr = await probeFile(join(FIXTURES, 'speech-cbr.mp3'), limits);
    expect(cbr).toMatchObject({ ok: true, durationSec: (196 * 1152 - 576 - 1241) / 32000 });
    const vbr = await probeFile(join(FIXTURES, 'speech-vbr-xing.mp3'), limits);
    expect(vbr).toMatchObject({ ok: true, durationSec: (270 * 576 - 576 - 611) / 22050 });
  });

  it.each([
    ['empty.wav', /empty file/],
    ['empty.mp3', /empty file/],
    ['not-audio.wav', /not a WAV or MP3 file/],
    ['header-only.wav', /no audio/],
    ['does-not-exist.wav', /no such file/],
  ])('rejects %s', async (name, reason) => {
    const result = await probeFile(join(FIXTURES, name), limits);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it('accepts a WAV cut short with a warning naming what it holds, and a streaming WAV without one', async () => {
    const cut = join(dir.path, 'cut.wav');
    await writeFile(cut, makeWav(1).subarray(0, 8044));
    const short = await probeFile(cut, limits);
    expect(short).toMatchObject({ ok: true, durationSec: 0.5 });
    if (short.ok)
      expect(short.warning).toBe(
        'the WAV file is cut short: its audio holds 7.8 KiB of the 15.6 KiB its header declares; the 0.5 s present is sent',
      );
    const streaming = makeWav(1);
    streaming.writeUInt32LE(0xffffffff, 40);
    await writeFile(join(dir.path, 'streaming.wav'), streaming.subarray(0, 8044));
    const whole = await probeFile(join(dir.path, 'streaming.wav'), limits);
    expect(whole).toMatchObject({ ok: true, durationSec: 0.5 });
    if (whole.ok) expect(whole.warning).toBeUndefined();
  });

  it('rejects a folder and an unreadable file', async () => {
    expect(await probeFile(FIXTURES, limits)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/folder/),
    });
    if (process.getuid?.() === 0) return; // root reads everything
    const locked = join(dir.path, 'locked.wav');
    await writeFile(locked, makeWav(1));
    await chmod(locked, 0o000);
    expect(await probeFile(locked, limits)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/not readable/),
    });
  });

  it('rejects a FIFO put in the place of a file its stat found regular, without blocking on it', async () => {
    const regular = join(dir.path, 'was-regular.wav');
    await writeFile(regular, makeWav(1));
    const fifo = join(dir.path, 'fifo-now.wav');
    execFileSync('mkfifo', [fifo]);
    const statOfTheFile = async () => stat(regular);
    let release: NodeJS.Timeout | undefined;
    const blocked = new Promise<'blocked'>((resolve) => {
      release = setTimeout(() => {
        // A blocking open waits for a writer: be one, so the open returns and the test ends.
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
        resolve('blocked');
      }, 3000);
    });
    try {
      const result = await Promise.race([probeFile(fifo, limits, statOfTheFile), blocked]);
      expect(result).toMatchObject({ ok: false, reason: 'not a regular file' });
    } finally {
      clearTimeout(release);
    }
  });

  it('rejects a file over the size limit without reading it as audio', async () => {
    const big = join(dir.path, 'big.wav');
    await writeFile(big, makeWav(10, 8000)); // 160 kB
    expect(await probeFile(big, { ...limits, maxSize: 100_000 })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/too large/),
    });
    expect(await probeFile(big, { ...limits, maxSize: 200_000 })).toMatchObject({ ok: true });
  });

  it('tells a figure from its limit where rounding would show them alike', async () => {
    const wav = join(dir.path, 'just-over.wav');
    await writeFile(wav, makeWav(5.001, 8000));
    expect(await probeFile(wav, { ...limits, maxDurationSec: 5 })).toMatchObject({
      ok: false,
      reason:
        'too long: 5.001 s, the limit is 5 s; split the recording, or raise the limit with --max-duration if the service takes longer ones',
    });
    const size = makeWav(5, 8000).length;
    expect(await probeFile(wav, { ...limits, maxSize: size })).toMatchObject({
      ok: false,
      reason: `too large: ${size + 16} bytes, the limit is ${size} bytes; split the recording, or raise the limit with --max-size if the service takes larger ones`,
    });
    expect(await probeFile(wav, { ...limits, maxDurationSec: 4 })).toMatchObject({
      ok: false,
      reason:
        'too long: 0:05, the limit is 0:04; split the recording, or raise the limit with --max-duration if the service takes longer ones',
    });
  });

  it('rejects other audio formats by their content, whatever the name', async () => {
    const flacLike = join(dir.path, 'fake.wav');
    await writeFile(flacLike, Buffer.concat([Buffer.from('fLaC'), Buffer.alloc(100)]));
    expect(await probeFile(flacLike, limits)).toMatchObject({
      ok: false,
      reason:
        'not a WAV or MP3 file (it looks like FLAC); convert it to WAV first (e.g. ffmpeg -i in.flac -c:a pcm_s16le out.wav)',
    });
    const text = join(dir.path, 'text.wav');
    await writeFile(text, 'hello, not audio at all\n');
    // Nothing to convert: no next step is made up.
    expect(await probeFile(text, limits)).toMatchObject({ ok: false, reason: 'not a WAV or MP3 file' });
    const wavNamedMp3 = join(dir.path, 'really-a-wav.mp3');
    await writeFile(wavNamedMp3, makeWav(1));
    expect(await probeFile(wavNamedMp3, limits)).toMatchObject({ ok: true, format: 'WAV' });
  });
});

describe('generated MP3 traps', () => {
  it('rejects a 61-minute MP3 of about 3.6 MB locally, by its exact length', async () => {
    const path = join(dir.path, 'hour-plus.mp3');
    const size = await writeMp3(path, { frames: framesFor(61 * 60) });
    expect(size).toBeLessThan(limits.maxSize);
    expect(size).toBeGreaterThan(3_500_000);
    const result = await probeFile(path, limits);
    expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(/too long: 1:01:00/) });
  });

  it('accepts a 59-minute MP3', async () => {
    const path = join(dir.path, 'hour-minus.mp3');
    const frames = framesFor(59 * 60);
    await writeMp3(path, { frames });
    const result = await probeFile(path, limits);
    expect(result).toMatchObject({ ok: true, format: 'MP3' });
    if (result.ok) expect(result.durationSec).toBeCloseTo(framesDuration(frames), 6);
  });

  it('measures a 61-minute VBR MP3 without a Xing header whose first frames share a bitrate', async () => {
    // The first frames are big (64 kbit/s), the rest small: a size-based CBR estimate says ~8 minutes.
    const frames = framesFor(61 * 60);
    const path = join(dir.path, 'vbr-trap.mp3');
    await writeMp3(path, { frames, bitrate: (i) => (i < 10 ? 64 : 8) });
    const quick = await parseFile(path, { duration: false });
    expect(quick.format.duration ?? 0).toBeLessThan(3600); // the trap is real
    const full = await parseFile(path, { duration: true });
    expect(full.format.duration ?? 0).toBeLessThan(3600); // even the full scan falls for it
    const result = await probeFile(path, limits);
    expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(/too long/) });
  });

  it('measures a short VBR MP3 without Xing exactly, whatever the first frames', async () => {
    const frames = 100;
    const path = join(dir.path, 'vbr-short.mp3');
    await writeMp3(path, { frames, bitrate: (i) => (i < 20 ? 64 : i % 2 ? 8 : 32) });
    const result = await probeFile(path, limits);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.durationSec).toBeCloseTo(framesDuration(frames), 6);
  });

  it('measures MPEG-1 and MPEG-2 files, with tags and an info header, exactly', async () => {
    for (const [index, options] of MP3_LAYOUT_CASES.entries()) {
      const path = join(dir.path, `case-${index}.mp3`);
      await writeFile(path, makeMp3(options));
      const result = await probeFile(path, limits);
      expect(result).toMatchObject({ ok: true, format: 'MP3' });
      if (!result.ok) continue;
      // The info frame is not audio, and the tags are not frames.
      expect(result.durationSec).toBeCloseTo(
        framesDuration(options.frames, options.version, options.sampleRate),
        9,
      );
      expect(result.durationSec).toBe(await measureAudioDuration(path));
    }
  });

  it('skips junk between frames and finds no frames in text', async () => {
    const path = join(dir.path, 'junk.mp3');
    const a = makeMp3({ frames: 50 });
    const b = makeMp3({ frames: 30 });
    await writeFile(path, Buffer.concat([a, Buffer.from('garbage \xff\xe0 in between', 'latin1'), b]));
    const result = await probeFile(path, limits);
    expect(result).toMatchObject({ ok: true, format: 'MP3' });
    if (result.ok) expect(result.durationSec).toBeCloseTo(framesDuration(80), 9);
    const text = join(dir.path, 'text.mp3');
    await writeFile(text, 'hello, this is not audio at all\n'.repeat(100));
    expect(await probeFile(text, limits)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/not a WAV or MP3/),
    });
  });

  it('accepts a few junk bytes before the first frame, as the sandbox decodes it, and measures it alike', async () => {
    const path = join(dir.path, 'junk-first.mp3');
    await writeFile(path, Buffer.concat([Buffer.from('\0\0\r\n'), makeMp3({ frames: 50 })]));
    const result = await probeFile(path, limits);
    expect(result).toMatchObject({ ok: true, format: 'MP3', durationSec: framesDuration(50) });
    expect(await measureAudioDuration(path)).toBe(framesDuration(50));
  });

  it('rejects an ID3 tag with no audio frames after it', async () => {
    const path = join(dir.path, 'tag-only.mp3');
    const tagged = Buffer.concat([
      makeMp3({ frames: 0, id3v2Bytes: 20 }),
      Buffer.from('just text afterwards'),
    ]);
    await writeFile(path, tagged);
    expect(await probeFile(path, limits)).toMatchObject({
      ok: false,
      reason: 'no audio: no MP3 audio frames found',
    });
  });

  it('accepts an MP3 of one or two frames, too short for music-metadata to sync on, measured exactly', async () => {
    // They were rejected as "not a WAV or MP3 file": music-metadata names no container for them.
    const cases: Array<[string, Buffer, number]> = [
      ['one-frame.mp3', makeMp3({ frames: 1 }), framesDuration(1)],
      ['two-frames.mp3', makeMp3({ frames: 2 }), framesDuration(2)],
      ['one-frame-24k.mp3', makeMp3({ frames: 1, version: 2, sampleRate: 24000, bitrate: 32 }), 0.024],
      ['two-frames-tagged.mp3', makeMp3({ frames: 2, id3v2Bytes: 100 }), framesDuration(2)],
    ];
    for (const [name, bytes, seconds] of cases) {
      const path = join(dir.path, name);
      await writeFile(path, bytes);
      expect(await probeFile(path, limits), name).toMatchObject({
        ok: true,
        format: 'MP3',
        durationSec: seconds,
      });
      expect(await measureAudioDuration(path), name).toBe(seconds);
    }
  });

  it('names MPEG layer II audio, whatever the name', async () => {
    // MPEG-1 Layer II, 128 kbit/s, 44.1 kHz, mono: 417-byte frames.
    const frame = Buffer.alloc(417);
    frame.set([0xff, 0xfd, 0x80, 0xc0]);
    const path = join(dir.path, 'layer2.mp3');
    await writeFile(path, Buffer.concat(Array.from({ length: 20 }, () => frame)));
    expect(await probeFile(path, limits)).toMatchObject({
      ok: false,
      reason:
        'not a WAV or MP3 file (it looks like MPEG layer II audio); convert it to WAV first (e.g. ffmpeg -i in.mp2 -c:a pcm_s16le out.wav)',
    });
    const tagged = join(dir.path, 'tagged-layer2.mp3');
    await writeFile(tagged, Buffer.concat([makeMp3({ frames: 0, id3v2Bytes: 20 }), await readFile(path)]));
    expect(await probeFile(tagged, limits)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^not a WAV or MP3 file \(it is MPEG.*layer (2|II)/i),
    });
  });

  it('judges the 60-minute limit on the gapless length, as the sandbox does', async () => {
    // 50 001 frames of 576 samples at 8 kHz: 3600.072 s as counted, 3599.875 s once the LAME tag's
    // 576 + 1000 samples are trimmed. A tag without an encoder name is not trusted: nothing is trimmed.
    const plain = makeMp3({ frames: 50_001, infoHeader: 'Info' });
    const trimmed = join(dir.path, 'gapless-hour.mp3');
    await writeFile(trimmed, withLameTag(plain, 576, 1000));
    const accepted = await probeFile(trimmed, limits);
    expect(accepted).toMatchObject({ ok: true, durationSec: 3599.875 });
    expect(await measureAudioDuration(trimmed)).toBe(3599.875);
    const untrimmed = join(dir.path, 'untrimmed-hour.mp3');
    await writeFile(untrimmed, withLameTag(plain, 576, 1000, '\0\0\0\0'));
    expect(await probeFile(untrimmed, limits)).toMatchObject({
      ok: false,
      // Both round to 1:00:00: told apart to the millisecond.
      reason: expect.stringMatching(
        /^too long: 3600\.\d+ s, the limit is 3600 s; split the recording, or raise the limit with --max-duration if the service takes longer ones$/,
      ),
    });
    expect(await measureAudioDuration(untrimmed)).toBeGreaterThan(3600);
  });

  it('rejects an MP3 longer than --max-duration and a WAV longer than it', async () => {
    const mp3 = join(dir.path, 'ten-seconds.mp3');
    await writeMp3(mp3, { frames: framesFor(10) });
    expect(await probeFile(mp3, { ...limits, maxDurationSec: 5 })).toMatchObject({ ok: false });
    expect(await probeFile(mp3, { ...limits, maxDurationSec: 11 })).toMatchObject({ ok: true });
    await mkdir(join(dir.path, 'w'), { recursive: true });
    const wav = join(dir.path, 'w', 'ten-seconds.wav');
    await writeFile(wav, makeWav(10));
    expect(await probeFile(wav, { ...limits, maxDurationSec: 5 })).toMatchObject({ ok: false });
  });
});

describe('odd WAV layouts: the local check and the sandbox judge alike', () => {
  /** A `fmt ` body: a classic tag, or WAVE_FORMAT_EXTENSIBLE with `subFormat` in its GUID. */
  function fmt(o: {
    tag?: number;
    channels?: number;
    rate?: number;
    bits?: number;
    block?: number;
    subFormat?: number;
  }) {
    const { tag = 1, channels = 1, rate = 8000, bits = 16 } = o;
    const block = o.block ?? (channels * bits) / 8;
    const base = fmtPcm(channels, rate, 16);
    base.writeUInt16LE(tag, 0);
    base.writeUInt32LE(rate * block, 8);
    base.writeUInt16LE(block, 12);
    base.writeUInt16LE(bits, 14);
    if (o.subFormat === undefined) return base;
    const extension = Buffer.alloc(24);
    extension.writeUInt16LE(22, 0);
    extension.writeUInt16LE(bits, 2);
    // KSDATAFORMAT_SUBTYPE_*: the format tag, then the fixed tail of the GUID.
    Buffer.from('000000001000800000aa00389b71', 'hex').copy(extension, 10);
    extension.writeUInt16LE(o.subFormat, 8);
    return Buffer.concat([base, extension]);
  }
  const audio = Buffer.alloc(24_000, 0x11); // 1.5 s of 16-bit mono at 8 kHz

  it.each([
    [
      'IMA ADPCM (its duration is not its size)',
      fmt({ tag: 0x11, bits: 4, block: 256 }),
      audio,
      /unsupported encoding \(format tag 0x0011\)/,
    ],
    [
      'MP3 inside a WAV',
      fmt({ tag: 0x55, bits: 0, block: 1 }),
      audio,
      /unsupported encoding \(format tag 0x0055\)/,
    ],
    [
      'an unknown EXTENSIBLE sub-format',
      fmt({ tag: 0xfffe, subFormat: 0x1234 }),
      audio,
      /unsupported encoding \(format tag 0x1234\)/,
    ],
    [
      'a block align that is no whole sample per channel',
      fmt({ channels: 2, block: 3 }),
      audio,
      /unsupported sample size/,
    ],
    ['a 500 Hz sample rate', fmt({ rate: 500 }), audio, /implausible sample rate \(500 Hz\)/],
  ])('rejects %s with its reason, as the sandbox refuses it', async (name, body, data, reason) => {
    const path = join(dir.path, `${name.replace(/\W+/g, '-')}.wav`);
    await writeFile(path, riff([chunk('fmt ', body), chunk('data', data)]));
    const result = await probeFile(path, limits);
    expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
    if (!result.ok) expect(result.reason).toMatch(/^not readable: a WAV file with /);
    // The check says what to do where converting helps; the sandbox's decoder (a service) does not.
    if (!result.ok)
      expect(
        result.reason.endsWith(
          '; convert it to PCM WAV first (e.g. ffmpeg -i in.wav -c:a pcm_s16le out.wav)',
        ),
      ).toBe(!/sample rate/.test(name));
    await expect(measureAudioDuration(path)).rejects.toThrow(reason);
    await expect(measureAudioDuration(path)).rejects.not.toThrow(/ffmpeg/);
  });

  it.each([
    ['EXTENSIBLE float', fmt({ tag: 0xfffe, subFormat: 3, bits: 32 }), 0.75],
    ['EXTENSIBLE PCM, 6 channels', fmt({ tag: 0xfffe, subFormat: 1, channels: 6 }), 0.25],
    ['µ-law', fmt({ tag: 7, bits: 8 }), 3],
  ])('accepts %s, measured as the sandbox measures it', async (name, body, seconds) => {
    const path = join(dir.path, `${name.replace(/\W+/g, '-')}.wav`);
    await writeFile(path, riff([chunk('fmt ', body), chunk('data', audio)]));
    expect(await probeFile(path, limits)).toMatchObject({ ok: true, durationSec: seconds });
    expect(await measureAudioDuration(path)).toBe(seconds);
  });

  it('accepts RF64 (small ones are written by recorders too), measured by its ds64 chunk as the sandbox does', async () => {
    const path = join(dir.path, 'rf64.wav');
    await writeFile(path, rf64(fmt({}), audio));
    expect(await probeFile(path, limits)).toMatchObject({ ok: true, format: 'WAV', durationSec: 1.5 });
    expect(await measureAudioDuration(path)).toBe(1.5);
    const cut = join(dir.path, 'rf64-cut.wav');
    await writeFile(cut, rf64(fmt({}), audio).subarray(0, -8000));
    const short = await probeFile(cut, limits);
    expect(short).toMatchObject({ ok: true, durationSec: 1, warning: expect.stringMatching(/cut short/) });
    expect(await measureAudioDuration(cut)).toBe(1);
  });

  it('takes a data chunk that declares 0 bytes (a streaming writer) to the end of the file, as the sandbox does', async () => {
    const bytes = makeWav(1.5);
    bytes.writeUInt32LE(0, 40);
    const path = join(dir.path, 'streamed-size-0.wav');
    await writeFile(path, bytes);
    expect(await probeFile(path, limits)).toMatchObject({ ok: true, durationSec: 1.5 });
    expect(await measureAudioDuration(path)).toBe(1.5);
  });
});
