import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseFile } from 'music-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanMpeg } from '../../src/redact/mpeg.js';
import { DEFAULT_MAX_DURATION_SECONDS, DEFAULT_MAX_SIZE } from '../../src/redact/options.js';
import { probeFile } from '../../src/redact/probe.js';
import { FIXTURES, tempDir } from '../helpers/cli.js';
import { framesDuration, framesFor, makeMp3, makeWav, writeMp3 } from '../helpers/mp3.js';

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

  it('rejects a file over the size limit without reading it as audio', async () => {
    const big = join(dir.path, 'big.wav');
    await writeFile(big, makeWav(10, 8000)); // 160 kB
    expect(await probeFile(big, { ...limits, maxSize: 100_000 })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/too large/),
    });
    expect(await probeFile(big, { ...limits, maxSize: 200_000 })).toMatchObject({ ok: true });
  });

  it('rejects other audio formats by their content, whatever the name', async () => {
    const flacLike = join(dir.path, 'fake.wav');
    await writeFile(flacLike, Buffer.concat([Buffer.from('fLaC'), Buffer.alloc(100)]));
    expect(await probeFile(flacLike, limits)).toMatchObject({ ok: false });
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

  it('counts MPEG-1 and MPEG-2 frames, with tags and an info header, exactly', async () => {
    const cases = [
      { frames: 300, version: 1 as const, sampleRate: 44100, bitrate: 128 },
      {
        frames: 300,
        version: 2 as const,
        sampleRate: 16000,
        bitrate: (i: number) => [32, 64, 8][i % 3] as number,
      },
      {
        frames: 500,
        infoHeader: 'Xing' as const,
        bitrate: (i: number) => (i % 5 ? 8 : 16),
        id3v2Bytes: 2000,
        id3v1: true,
      },
      { frames: 500, infoHeader: 'Info' as const, stereo: true, bitrate: 32 },
    ];
    for (const [index, options] of cases.entries()) {
      const path = join(dir.path, `case-${index}.mp3`);
      await writeFile(path, makeMp3(options));
      const scan = await scanMpeg(path);
      expect(scan.frames).toBe(options.frames);
      expect(scan.durationSec).toBeCloseTo(
        framesDuration(options.frames, options.version, options.sampleRate),
        6,
      );
      expect(scan.infoHeader).toBe(options.infoHeader);
      expect(scan.junkBytes).toBe(0);
    }
  });

  it('skips junk between frames and finds no frames in text', async () => {
    const path = join(dir.path, 'junk.mp3');
    const a = makeMp3({ frames: 50 });
    const b = makeMp3({ frames: 30 });
    await writeFile(path, Buffer.concat([a, Buffer.from('garbage \xff\xe0 in between'), b]));
    const scan = await scanMpeg(path);
    expect(scan.frames).toBe(80);
    const text = join(dir.path, 'text.mp3');
    await writeFile(text, 'hello, this is not audio at all\n'.repeat(100));
    expect((await scanMpeg(text)).frames).toBe(0);
    expect(await probeFile(text, limits)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/not a WAV or MP3/),
    });
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
