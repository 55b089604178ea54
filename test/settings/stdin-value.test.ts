import { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { MAX_STDIN_VALUE_BYTES, readStdinValue } from '../../src/settings/stdin-value.js';

describe('readStdinValue', () => {
  test('a line with its CRLF or spaces around it is the value alone', async () => {
    expect(await readStdinValue(Readable.from([Buffer.from('  vr_abc_123\r\n')]), 'a token')).toBe(
      'vr_abc_123',
    );
  });

  test('a stream that never ends is refused past the limit, and read no further', async () => {
    let pulled = 0;
    const endless = new Readable({
      read() {
        pulled++;
        this.push(Buffer.from('y\n'.repeat(512)));
      },
    });
    await expect(readStdinValue(endless, 'a token')).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringContaining('more than 64 KiB'),
    });
    expect(endless.destroyed).toBe(true);
    // Each pull is 1 KiB; the stream's own read-ahead adds at most its 16 KiB buffer.
    expect(pulled * 1024).toBeLessThan(MAX_STDIN_VALUE_BYTES + 64 * 1024);
  });
});
