/** A result is kept only when it is a whole WAV of about its input's duration; otherwise nothing is left. */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ResponseBody } from '../../src/api/client.js';
import { DEFAULT_DURATION_TOLERANCE } from '../../src/redact/options.js';
import { type CheckedWavSummary, checkedWav, resultSink } from '../../src/redact/verify.js';
import { ResultRejectedError, ResultTooLargeError } from '../../src/redact/result-rejected.js';
import { byteCapFor, RESULT_MAX_BYTES_PER_SECOND, resultByteCap } from '../../src/redact/result-cap.js';
import { layoutWav } from '../helpers/result-wav.js';
import { OutputFolder } from '../../src/fs/containment.js';
import { tempDirPerTest } from '../helpers/cli.js';
import { makeWav } from '../helpers/mp3.js';

const dir = tempDirPerTest('vredact-verify-');
const expect5s = { durationSec: 5, tolerance: DEFAULT_DURATION_TOLERANCE };

function body(
  bytes: Buffer,
  contentLength: number | undefined = bytes.length,
  type = 'audio/wav',
): ResponseBody {
  return { body: Readable.from([bytes]), contentLength, contentType: type };
}

/** The WAV with its format tag made IMA ADPCM's. */
function adpcm(wav: Buffer): Buffer {
  const copy = Buffer.from(wav);
  copy.writeUInt16LE(0x11, 20);
  return copy;
}

describe('result verification', () => {
  it('keeps a whole WAV of about the input duration, with its SHA-256', async () => {
    const dest = join(dir.path, 'a.wav');
    const wav = makeWav(5.5);
    const written = await resultSink(
      { folder: new OutputFolder(dir.path), outputRel: 'a.wav' },
      expect5s,
    )(body(wav));
    expect(written).toMatchObject({ bytes: wav.length, durationSec: 5.5 });
    expect(written.sha256).toBe(createHash('sha256').update(wav).digest('hex'));
    expect(Buffer.compare(await readFile(dest), wav)).toBe(0);
    expect(await readdir(dir.path)).toEqual(['a.wav']);
  });

  it('hashes the bytes only for a caller that passes a hash (download keeps none)', async () => {
    const wav = makeWav(2);
    const run = async (hash?: ReturnType<typeof createHash>) => {
      const found: CheckedWavSummary[] = [];
      const parts: Uint8Array[] = [];
      const check = { subject: 'the file', ...(hash ? { hash } : {}) };
      for await (const chunk of checkedWav(body(wav), check, (summary) => found.push(summary)))
        parts.push(chunk);
      expect(Buffer.compare(Buffer.concat(parts), wav)).toBe(0);
      return found;
    };
    expect(await run()).toEqual([{ bytes: wav.length, durationSec: 2 }]);
    const hash = createHash('sha256');
    expect(await run(hash)).toEqual([{ bytes: wav.length, durationSec: 2 }]);
    expect(hash.digest('hex')).toBe(createHash('sha256').update(wav).digest('hex'));
  });

  it.each([
    ['a text body labelled audio/wav', body(Buffer.from('{"status":"queued"}')), /not a WAV file/],
    ['a WAV cut short without Content-Length', body(makeWav(5).subarray(0, 3000), undefined), /cut short/],
    [
      'a WAV shorter than its Content-Length',
      body(makeWav(5).subarray(0, 3000), 80_044),
      /3000 bytes where 80044/,
    ],
    ['a WAV far shorter than its input', body(makeWav(1)), /lasts 1 s, the input 5 s/],
    ['a WAV far longer than its input', body(makeWav(9)), /lasts 9 s/],
    [
      'a WAV of the input duration declaring a longer one (its data cut short), named as cut short',
      body(Buffer.concat([makeWav(9).subarray(0, 44), makeWav(5).subarray(44)]), undefined),
      /cut short: \d+ of the \d+ bytes of audio it declares/,
    ],
    ['an announced size past the cap', body(makeWav(5), resultByteCap(5, 2) + 1), /announced/],
    [
      // The local check's next step (convert it) is no help with the service's own result.
      'a WAV of an encoding vredact does not take, without the hint given for an input',
      body(adpcm(makeWav(5))),
      /^the service's result \(audio\/wav\) is a WAV file with an unsupported encoding \(format tag 0x0011\)$/,
    ],
  ])('fails %s and leaves nothing behind', async (_name, response, reason) => {
    const failure = resultSink(
      { folder: new OutputFolder(dir.path), outputRel: 'a.wav' },
      expect5s,
    )(response);
    await expect(failure).rejects.toBeInstanceOf(ResultRejectedError);
    await expect(failure).rejects.toThrow(reason);
    expect(await readdir(dir.path)).toEqual([]);
  });

  it('cuts off an endless body at the cap', async () => {
    const header = makeWav(5).subarray(0, 44);
    header.writeUInt32LE(0xffffffff, 40); // a streaming WAV: no length known
    let sent = 0;
    async function* endless() {
      yield header;
      for (;;) {
        sent += 65536;
        yield Buffer.alloc(65536);
      }
    }
    const response = { body: endless(), contentLength: undefined, contentType: 'audio/wav' };
    await expect(
      resultSink({ folder: new OutputFolder(dir.path), outputRel: 'a.wav' }, expect5s)(response),
    ).rejects.toThrow(/cut off past/);
    expect(sent).toBeLessThan(resultByteCap(5, 2) + 65536 * 2);
    expect(await readdir(dir.path)).toEqual([]);
  });

  it("holds a result to its own layout's rate: a 96 kHz 24-bit stereo one is kept whole", async () => {
    const wav = layoutWav({ sampleRate: 96_000, channels: 2, bits: 24 }, 12);
    expect(wav.length).toBeGreaterThan(resultByteCap(12, 2));
    const dest = join(dir.path, 'a.wav');
    const result = await resultSink(
      { folder: new OutputFolder(dir.path), outputRel: 'a.wav' },
      { durationSec: 12, tolerance: DEFAULT_DURATION_TOLERANCE },
    )(body(wav));
    expect(result.bytes).toBe(wav.length);
    expect(Buffer.compare(await readFile(dest), wav)).toBe(0);
  });

  it('cuts off a body whose header declares more than the highest rate at that rate', async () => {
    const header = layoutWav({ sampleRate: 1_000_000, channels: 32, bits: 16 }, 0);
    header.writeUInt32LE(0xffffffff, 40);
    let sent = 0;
    async function* endless() {
      yield header;
      for (;;) {
        sent += 1024 * 1024;
        yield Buffer.alloc(1024 * 1024);
      }
    }
    const response = { body: endless(), contentLength: undefined, contentType: 'audio/wav' };
    const cap = { seconds: 7, of: 'a 5 s recording' };
    const failure = (async () => {
      for await (const chunk of checkedWav(response, { subject: 'the result', cap }, () => undefined))
        void chunk;
    })();
    await expect(failure).rejects.toBeInstanceOf(ResultTooLargeError);
    await expect(failure).rejects.toThrow(`cut off past ${byteCapFor(7, RESULT_MAX_BYTES_PER_SECOND)} bytes`);
    expect(sent).toBeLessThan(byteCapFor(7, RESULT_MAX_BYTES_PER_SECOND) + 2 * 1024 * 1024);
  });
});
