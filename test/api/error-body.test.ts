import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readErrorBody } from '../../src/api/error-body.js';
import { errorForStatus } from '../../src/api/errors.js';

const bytes = (...chunks: string[]) => Readable.from(chunks.map((chunk) => Buffer.from(chunk)));

describe('reading an error body', () => {
  it('reads a body within the cap whole, its message from its JSON', async () => {
    expect(await readErrorBody(bytes('{"error":500,', '"message":" boom "}'), 100)).toEqual({
      message: 'boom',
    });
    // Exactly at the cap is not cut.
    expect(await readErrorBody(bytes('abcd'), 4)).toEqual({ message: undefined });
  });

  it('past the cap: reads no further, and takes a message that lies within the part read', async () => {
    const long = bytes('{"message":"disk full",', '"detail":"', 'x'.repeat(1000), '"}');
    expect(await readErrorBody(long, 64)).toEqual({ message: 'disk full', cutAt: 64 });
    expect(long.destroyed).toBe(true);
    expect(await readErrorBody(bytes(`{"detail":"${'x'.repeat(100)}","message":"late"}`), 64)).toEqual({
      message: undefined,
      cutAt: 64,
    });
    expect(await readErrorBody(bytes('<html>', 'y'.repeat(100)), 64)).toEqual({
      message: undefined,
      cutAt: 64,
    });
    // A problem's detail (RFC 9457) within the part read, when no message is.
    expect(
      await readErrorBody(bytes(`{"title":"Bad","detail":"no such job","x":"${'x'.repeat(100)}"}`), 64),
    ).toEqual({
      message: 'no such job',
      cutAt: 64,
    });
    // A nested `message` is not the service's.
    expect(await readErrorBody(bytes(`{"a":{"message":"inner"},"b":"${'z'.repeat(100)}`), 64)).toEqual({
      message: undefined,
      cutAt: 64,
    });
  });

  it("a cut body's error says so, with its message or without", () => {
    expect(errorForStatus(500, 'listing jobs', { message: 'boom', cutAt: 65536 }).message).toBe(
      'listing jobs: the service answered 500 Internal Server Error: boom (its error body was over 64 KiB; only the start was read)',
    );
    expect(errorForStatus(502, 'listing jobs', { message: undefined, cutAt: 65536 }).message).toBe(
      'listing jobs: the service answered 502 Bad Gateway (its error body was over 64 KiB, too large to read)',
    );
  });
});
