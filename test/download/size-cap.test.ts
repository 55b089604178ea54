import { describe, expect, test } from 'vitest';
import { capped, DownloadTooLargeError, downloadSizeCap } from '../../src/download/size-cap.js';
import { RESULT_MAX_BYTES_PER_SECOND, resultByteCap } from '../../src/redact/result-cap.js';

/** A WAV header whose RIFF size field says `riffSize` (the data chunk declares the same), 16 kHz mono 16-bit unless told. */
function wavHeader(riffSize: number, layout = { sampleRate: 16_000, channels: 1, bits: 16 }): Buffer {
  const blockAlign = layout.channels * (layout.bits / 8);
  const head = Buffer.alloc(44);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(riffSize, 4);
  head.write('WAVEfmt ', 8, 'latin1');
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20);
  head.writeUInt16LE(layout.channels, 22);
  head.writeUInt32LE(layout.sampleRate, 24);
  head.writeUInt32LE(layout.sampleRate * blockAlign, 28);
  head.writeUInt16LE(blockAlign, 32);
  head.writeUInt16LE(layout.bits, 34);
  head.write('data', 36, 'latin1');
  head.writeUInt32LE(riffSize, 40);
  return head;
}

async function* chunksOf(first: Buffer, chunk: number, count: number): AsyncIterable<Uint8Array> {
  yield first;
  for (let i = 0; i < count; i++) yield Buffer.alloc(chunk, 1);
}

async function drain(body: AsyncIterable<Uint8Array>): Promise<number> {
  let bytes = 0;
  for await (const chunk of body) bytes += chunk.byteLength;
  return bytes;
}

describe('downloadSizeCap: the rule of redact results', () => {
  test("from the listing's duration, with redact's default tolerance", () => {
    expect(downloadSizeCap(10).bytes).toBe(resultByteCap(10, 2));
    expect(downloadSizeCap(600).bytes).toBe(resultByteCap(600, 30));
    expect(downloadSizeCap(10).of).toBe('a 10 s recording');
    // A WAV in a layout of more bytes a second than 48 kHz stereo 32-bit is held to its own rate.
    expect(downloadSizeCap(10).wavBytes).toBe(resultByteCap(10, 2, RESULT_MAX_BYTES_PER_SECOND));
    expect(downloadSizeCap(10).seconds).toBe(12);
  });

  test.each([null, undefined, 0, -5, Number.NaN, 3601, 1e12])(
    'a duration of %s is not trusted: the longest recording the service accepts stands in',
    (duration) => {
      expect(downloadSizeCap(duration).bytes).toBe(resultByteCap(3600, 180));
      // A WAV at the highest rate for that hour, then its header's size (capped): as for a known duration.
      expect(downloadSizeCap(duration).wavBytes).toBe(resultByteCap(3600, 180, RESULT_MAX_BYTES_PER_SECOND));
      expect(downloadSizeCap(duration).seconds).toBe(3780);
      expect(downloadSizeCap(duration).expectedBytes).toBeUndefined();
      expect(downloadSizeCap(duration).of).toMatch(/the longest recording the service accepts/);
    },
  );
});

describe('capped', () => {
  const cap = downloadSizeCap(1);

  test('a body within the cap passes whole', async () => {
    expect(await drain(capped(chunksOf(Buffer.alloc(10), 1000, 5), cap))).toBe(5010);
    const exact = cap.bytes - 10;
    expect(await drain(capped(chunksOf(Buffer.alloc(10), exact, 1), cap))).toBe(cap.bytes);
  });

  test('an endless WAV declaring 0xFFFFFFFF bytes is cut off past the cap, never reading on', async () => {
    let pulled = 0;
    async function* endless(): AsyncIterable<Uint8Array> {
      yield wavHeader(0xffffffff);
      for (;;) {
        pulled++;
        yield Buffer.alloc(1024 * 1024);
      }
    }
    let passed = 0;
    const failure = await (async () => {
      for await (const chunk of capped(endless(), cap)) passed += chunk.byteLength;
    })().catch((error: unknown) => error);
    // Here at the highest rate: the check of the WAV's own layout (verify.ts) holds it to its rate.
    expect(failure).toBeInstanceOf(DownloadTooLargeError);
    expect((failure as Error).message).toBe(
      `the file was cut off past ${cap.wavBytes} bytes, more than a 1 s recording can need`,
    );
    expect(passed).toBeLessThanOrEqual(cap.wavBytes);
    expect(pulled).toBe(Math.ceil((cap.wavBytes - 44) / (1024 * 1024)));
  });

  test('a WAV is cut off past the size its header declares, even within the duration cap', async () => {
    // Declares 1000 bytes after the first 8, header split across chunks.
    const head = wavHeader(1000);
    async function* body(): AsyncIterable<Uint8Array> {
      yield head.subarray(0, 5);
      yield head.subarray(5);
      yield Buffer.alloc(2000);
    }
    await expect(drain(capped(body(), cap))).rejects.toThrow(
      'the file was cut off past 1008 bytes, more than its WAV header declares',
    );
    expect(await drain(capped(chunksOf(head, 964, 1), cap))).toBe(1008);
  });

  test('a body that is not a WAV is bounded by the duration alone', async () => {
    expect(await drain(capped(chunksOf(Buffer.from('RIFX0000WAVE'), 100_000, 20), cap))).toBe(2_000_012);
  });

  test('a Content-Length past the cap fails before any byte is passed on', async () => {
    const passed: number[] = [];
    const read = async (announced: number | undefined) => {
      for await (const chunk of capped(chunksOf(Buffer.alloc(10), 10, 1), cap, announced))
        passed.push(chunk.byteLength);
    };
    await expect(read(cap.bytes + 1)).rejects.toThrow(
      `the file is announced at ${cap.bytes + 1} bytes, more than a 1 s recording can need (${cap.bytes})`,
    );
    expect(passed).toEqual([]);
    await read(cap.bytes);
    await read(undefined);
    expect(passed).toEqual([10, 10, 10, 10]);
  });

  describe('a file of no listed duration', () => {
    const unknown = downloadSizeCap(null);
    const MiB = 1024 * 1024;
    /** `total` bytes in all: `first`, then one reused 1 MiB chunk (cut to fit): never held whole in memory. */
    async function* lazily(first: Buffer, total: number): AsyncIterable<Uint8Array> {
      yield first;
      const chunk = Buffer.alloc(MiB, 3);
      for (let sent = first.length; sent < total; sent += MiB)
        yield chunk.subarray(0, Math.min(MiB, total - sent));
    }
    // 576,000 bytes a second, 3.6 times the least rate.
    const master = { sampleRate: 96_000, channels: 2, bits: 24 };

    test('a 96 kHz 24-bit stereo WAV of 2.07 GB (59 min 54 s, over an hour at the least rate) passes whole', async () => {
      const total = 2_070_000_000;
      expect(total).toBeGreaterThan(unknown.bytes);
      expect(await drain(capped(lazily(wavHeader(total - 8, master), total), unknown))).toBe(total);
    });

    test('announced at its length it passes; announced past its header it fails before any byte', async () => {
      const total = 2_000_000_000;
      expect(await drain(capped(lazily(wavHeader(total - 8, master), total), unknown, total))).toBe(total);
      await expect(
        drain(capped(lazily(wavHeader(total - 8, master), total), unknown, total + 2)),
      ).rejects.toThrow(
        `the file is announced at ${total + 2} bytes, more than its WAV header declares (${total})`,
      );
    });

    test("it is cut off past its header's size", async () => {
      const declared = 1_600_000_000;
      await expect(
        drain(capped(lazily(wavHeader(declared - 8, master), declared + MiB), unknown)),
      ).rejects.toThrow(`the file was cut off past ${declared} bytes, more than its WAV header declares`);
    });

    test('a body that is not a WAV is still held to the least rate (about 1.45 GB)', async () => {
      await expect(
        drain(
          capped(lazily(Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00\x00\x00'), unknown.bytes + 1), unknown),
        ),
      ).rejects.toThrow(
        `the file was cut off past ${unknown.bytes} bytes, more than the longest recording the service accepts (1:00:00) can need`,
      );
    });
  });
});
