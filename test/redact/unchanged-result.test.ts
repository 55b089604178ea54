/** A result byte for byte its upload is refused, unless nothing in it can be heard. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { wavPeak } from '../../src/audio/wav-peak.js';
import { ResultRejectedError } from '../../src/redact/result-rejected.js';
import { SILENCE_PEAK, unchangedResultProblem } from '../../src/redact/unchanged-result.js';
import { tempDirPerTest } from '../helpers/cli.js';
import { layoutWav } from '../helpers/result-wav.js';

const dir = tempDirPerTest('vredact-unchanged-');

/** A WAV of `bytes` as its data, in 16-bit mono PCM or another encoding's format tag. */
function wavWith(data: Buffer, tag = 1, bits = 16): Buffer {
  const wav = layoutWav({ sampleRate: 8000, channels: 1, bits }, data.length / (bits / 8) / 8000);
  wav.writeUInt16LE(tag, 20);
  data.copy(wav, 44);
  return wav;
}

async function written(name: string, bytes: Buffer): Promise<string> {
  const path = join(dir.path, name);
  await writeFile(path, bytes);
  return path;
}

describe('unchangedResultProblem', () => {
  it('refuses the upload itself when something in it can be heard', async () => {
    const path = await written('call.wav', layoutWav({ sampleRate: 16_000, channels: 1, bits: 16 }, 1, 5));
    const problem = await unchangedResultProblem('abc', { sha256: 'abc', path });
    expect(problem).toBeInstanceOf(ResultRejectedError);
    expect(problem?.message).toMatch(/is the uploaded file itself, unchanged/);
  });

  it('takes back digital silence, in 16-bit PCM, 8-bit PCM and A-law', async () => {
    const silent16 = await written('s16.wav', layoutWav({ sampleRate: 16_000, channels: 2, bits: 16 }, 1, 0));
    const silent8 = await written('s8.wav', wavWith(Buffer.alloc(8000, 0x80), 1, 8));
    const alaw = await written('alaw.wav', wavWith(Buffer.alloc(8000, 0xd5), 6, 8));
    for (const path of [silent16, silent8, alaw]) {
      expect(await wavPeak(path)).toBeLessThan(SILENCE_PEAK);
      expect(await unchangedResultProblem('abc', { sha256: 'abc', path })).toBeUndefined();
    }
  });

  it('hears one channel that another would cancel in a mix', async () => {
    const data = Buffer.alloc(16_000 * 4);
    for (let at = 0; at < data.length; at += 4) {
      data.writeInt16LE(4000, at);
      data.writeInt16LE(-4000, at + 2);
    }
    const wav = layoutWav({ sampleRate: 16_000, channels: 2, bits: 16 }, 1);
    data.copy(wav, 44);
    const path = await written('opposed.wav', wav);
    expect(await wavPeak(path)).toBeCloseTo(4000 / 32768, 6);
    expect(await unchangedResultProblem('abc', { sha256: 'abc', path })).toBeInstanceOf(ResultRejectedError);
  });

  it('reads nothing for a result that is not the upload, or with no upload known', async () => {
    const missing = join(dir.path, 'no-such-file.wav');
    expect(await unchangedResultProblem('abc', { sha256: 'def', path: missing })).toBeUndefined();
    expect(await unchangedResultProblem('abc', undefined)).toBeUndefined();
    // The upload's bytes gone from disk: what they held cannot be told, so the result is refused.
    expect(await unchangedResultProblem('abc', { sha256: 'abc', path: missing })).toBeInstanceOf(
      ResultRejectedError,
    );
  });
});
