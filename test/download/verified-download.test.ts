import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listedDurationReadings } from '../../src/api/audio-duration.js';
import {
  DownloadRejectedError,
  hasWavName,
  isErrorPageType,
  listedDurationJudge,
  standsForDownload,
  verifiedDownload,
} from '../../src/download/verified-download.js';
import { tempDirPerTest } from '../helpers/cli.js';
import { resultWav, resultWavOf, streamingWavHead, wavCutShort } from '../helpers/result-wav.js';

const dir = tempDirPerTest('vredact-verified-download-');

/** A body of `bytes` in chunks of `size`, counting the chunks read from it. */
function chunked(bytes: Buffer, size: number) {
  const read = { chunks: 0 };
  const body = (async function* () {
    for (let at = 0; at < bytes.length; at += size) {
      read.chunks++;
      yield bytes.subarray(at, at + size);
    }
  })();
  return { body, read };
}

async function collect(
  bytes: Buffer,
  fileName: string,
  options: { contentType?: string; size?: number; listedDuration?: number; contentLength?: number } = {},
): Promise<Buffer> {
  const { body } = chunked(bytes, options.size ?? 7);
  const parts: Uint8Array[] = [];
  const response = {
    body,
    contentLength: options.contentLength,
    contentType: options.contentType ?? 'audio/wav',
  };
  for await (const part of verifiedDownload(response, { fileName, listedDuration: options.listedDuration }))
    parts.push(part);
  return Buffer.concat(parts);
}

describe('isErrorPageType / hasWavName', () => {
  it('tells an error page by its Content-Type, with parameters and in any case', () => {
    for (const type of [
      'text/html',
      'text/html; charset=utf-8',
      'Application/XML',
      'text/xml',
      'application/json',
      'application/problem+json',
      'application/xhtml+xml',
    ])
      expect(isErrorPageType(type), type).toBe(true);
    for (const type of [
      'audio/wav',
      'audio/x-wav',
      'application/octet-stream',
      'binary/octet-stream',
      'text/plain',
      '',
    ])
      expect(isErrorPageType(type), type).toBe(false);
  });

  it('a WAV name ends in .wav, in any case', () => {
    expect(hasWavName('a.wav')).toBe(true);
    expect(hasWavName('A.WAV')).toBe(true);
    expect(hasWavName('a.wav.json')).toBe(false);
    expect(hasWavName('wav')).toBe(false);
  });
});

describe('listedDurationJudge', () => {
  it('allows every reading of the listed duration within the default tolerance', () => {
    expect(listedDurationReadings(60)).toEqual([60, 0.06]);
    expect(listedDurationReadings(6999)).toEqual([6.999]);
    expect(listedDurationReadings(null)).toEqual([]);
    const judge = listedDurationJudge(60);
    expect(judge(58)).toBeUndefined();
    expect(judge(63)).toBeUndefined();
    expect(judge(1)).toBeUndefined(); // 60 ms, give or take 2 s
    expect(judge(30)?.message).toBe(
      "the file lasts 30 s, the job's listing gives 1:00 (allowed: 57 s to 1:03, or 0 s to 2.06 s if it counts milliseconds)",
    );
    expect(listedDurationJudge(6999)(7)).toBeUndefined();
    expect(listedDurationJudge(6999)(20)?.message).toBe(
      "the file lasts 20 s, the job's listing gives 7 s (allowed: 5 s to 9 s)",
    );
  });

  it('with no duration listed, any is allowed', () => {
    expect(listedDurationJudge(undefined)(12_345)).toBeUndefined();
    expect(listedDurationJudge(0)(3)).toBeUndefined();
  });
});

describe('verifiedDownload', () => {
  it('passes a whole WAV on unchanged, in the chunks it came in', async () => {
    const wav = resultWavOf(1);
    expect((await collect(wav, 'a.wav', { listedDuration: 1, contentLength: wav.length })).equals(wav)).toBe(
      true,
    );
    expect((await collect(wav, 'a.wav', { size: 1 })).equals(wav)).toBe(true);
  });

  it('refuses an error page before reading a byte of it', async () => {
    const { body, read } = chunked(Buffer.from('<Error><Code>NoSuchKey</Code></Error>'), 4);
    const response = { body, contentLength: undefined, contentType: 'application/xml; charset=utf-8' };
    const parts = verifiedDownload(response, { fileName: 'notes.txt' });
    await expect(
      (async () => {
        for await (const part of parts) void part;
      })(),
    ).rejects.toMatchObject({
      name: 'DownloadRejectedError',
      message:
        "the download link's host answered with application/xml, not a WAV (an error page, not the file)",
      hint: "run the same command again for a fresh link; if it fails again, report it to the service's operators",
    });
    expect(read.chunks).toBe(0);
  });

  it('fails a WAV name whose body is not a whole WAV, naming what was wrong', async () => {
    await expect(collect(Buffer.from('hello, not audio'), 'a.wav')).rejects.toThrow(
      'the file (audio/wav) is not a WAV file (no RIFF/WAVE header)',
    );
    await expect(collect(wavCutShort(32_000, 3000), 'a.wav')).rejects.toThrow(
      'the file (audio/wav) is a WAV file cut short: 3000 of the 32000 bytes of audio it declares',
    );
    await expect(collect(resultWav(0), 'a.wav')).rejects.toThrow('the file is a WAV file with no audio');
    const wav = resultWavOf(1);
    await expect(collect(wav, 'a.wav', { contentLength: wav.length + 10 })).rejects.toThrow(
      `the file has ${wav.length} bytes where ${wav.length + 10} were announced`,
    );
    await expect(collect(resultWavOf(5), 'a.wav', { listedDuration: 60 })).rejects.toBeInstanceOf(
      DownloadRejectedError,
    );
  });

  it('verifies another name as a WAV when its body is one, and passes any other body on', async () => {
    await expect(collect(wavCutShort(32_000, 3000), 'call.mp3')).rejects.toThrow(/cut short/);
    const text = Buffer.from('speaker turns: 12\n');
    expect((await collect(text, 'notes.txt', { contentType: 'text/plain' })).equals(text)).toBe(true);
    const short = Buffer.from('abc');
    expect((await collect(short, 'x.bin', { contentType: 'application/octet-stream' })).equals(short)).toBe(
      true,
    );
  });

  it('holds no more than a chunk: a streaming WAV of 8 MiB passes in its chunks', async () => {
    const wav = Buffer.concat([streamingWavHead(), Buffer.alloc(8 * 1024 * 1024, 1)]);
    const { body, read } = chunked(wav, 64 * 1024);
    let largest = 0;
    let total = 0;
    for await (const part of verifiedDownload(
      { body, contentLength: undefined, contentType: 'audio/wav' },
      { fileName: 'a.wav' },
    )) {
      largest = Math.max(largest, part.byteLength);
      total += part.byteLength;
    }
    expect(total).toBe(wav.length);
    expect(largest).toBe(64 * 1024);
    expect(read.chunks).toBe(Math.ceil(wav.length / (64 * 1024)));
  });
});

describe('standsForDownload', () => {
  it('a WAV name stands when it opens with RIFF/WAVE and is as long as it declares; another name always', async () => {
    const at = (name: string) => join(dir.path, name);
    const wav = resultWavOf(1);
    await writeFile(at('whole.wav'), wav);
    await writeFile(at('streamed.wav'), Buffer.concat([streamingWavHead(), Buffer.alloc(100)]));
    await writeFile(at('page.wav'), '<?xml version="1.0"?><Error><Code>NoSuchKey</Code></Error>');
    await writeFile(at('cut.wav'), wav.subarray(0, 100));
    await writeFile(at('empty.wav'), '');
    await writeFile(at('notes.txt'), '<html></html>');
    expect(await standsForDownload(at('whole.wav'), 'whole.wav')).toBe(true);
    expect(await standsForDownload(at('streamed.wav'), 'streamed.wav')).toBe(true);
    expect(await standsForDownload(at('page.wav'), 'page.wav')).toBe(false);
    expect(await standsForDownload(at('cut.wav'), 'cut.wav')).toBe(false);
    expect(await standsForDownload(at('empty.wav'), 'empty.wav')).toBe(false);
    expect(await standsForDownload(at('notes.txt'), 'notes.txt')).toBe(true);
  });
});
