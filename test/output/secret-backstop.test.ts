import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { maskingStream } from '../../src/output/secret-backstop.js';

const TOKEN = 'vr_backstop_0123456789abcdef';

function recorded() {
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
  stream.isTTY = true;
  stream.columns = 60;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

describe('maskingStream', () => {
  it('masks the token whole in text, passes bytes as they are, and keeps the stream its own', () => {
    const { stream, text } = recorded();
    const out = maskingStream(stream, () => [TOKEN, undefined]);
    out.write(`a ${TOKEN}.wav\n`);
    out.write(Buffer.from(`${TOKEN}\n`));
    expect(text()).toBe(`a vr_…cdef.wav\n${TOKEN}\n`);
    expect([out.isTTY, out.columns]).toEqual([true, 60]);
    // Listeners go on the stream itself: its events reach them.
    let drained = false;
    out.on('drain', () => (drained = true)).off('nothing', () => {});
    stream.emit('drain');
    expect(drained).toBe(true);
  });

  it('a write hooked in its place (as ora does) is called, then put back, without looping', () => {
    const { stream, text } = recorded();
    const out = maskingStream(stream, () => [TOKEN]);
    const taken = out.write;
    const seen: string[] = [];
    out.write = ((chunk: string) => {
      seen.push(chunk);
      return taken(chunk);
    }) as typeof out.write;
    out.write(`x ${TOKEN}\n`);
    out.write = taken;
    out.write(`y ${TOKEN}\n`);
    expect(seen).toEqual([`x ${TOKEN}\n`]);
    expect(text()).toBe('x vr_…cdef\ny vr_…cdef\n');
    expect(stream.write).not.toBe(out.write);
  });

  it("goes through a write hooked on the stream itself after it was wrapped (ora's on process.stdout)", () => {
    const { stream, text } = recorded();
    const out = maskingStream(stream, () => [TOKEN]);
    const own = stream.write.bind(stream);
    const seen: string[] = [];
    stream.write = ((chunk: string) => {
      seen.push(chunk);
      return own(chunk);
    }) as typeof stream.write;
    out.write(`y ${TOKEN}\n`);
    expect(seen).toEqual(['y vr_…cdef\n']);
    expect(text()).toBe('y vr_…cdef\n');
  });
});

/** ora's hook (hookStream): `write` replaced by one that counts, and what it took, to put back. */
function hook(stream: { write: (...args: never[]) => boolean }, passes: string[], name: string) {
  const taken = stream.write;
  stream.write = ((chunk: string) => {
    passes.push(name);
    return taken.call(stream, chunk as never);
  }) as typeof stream.write;
  return () => (stream.write = taken);
}

describe('maskingStream under a spinner', () => {
  it('a line written through it passes one hook when ora hooks both it and the stream underneath', () => {
    const { stream, text } = recorded();
    const out = maskingStream(stream, () => [TOKEN]);
    const passes: string[] = [];
    // ora hooks the stream it draws on first, then process.stdout and process.stderr.
    const unhooks = [hook(out, passes, 'wrapper'), hook(stream, passes, 'stream')];
    out.write(`a ${TOKEN}\n`);
    expect(passes).toEqual(['stream']);
    for (const unhook of unhooks) unhook();
    out.write(`b ${TOKEN}\n`);
    expect(passes).toEqual(['stream']);
    expect(text()).toBe('a vr_…cdef\nb vr_…cdef\n');
    // Once both are put back, a spinner started again hooks the wrapper alone where the stream is not process's.
    const again = hook(out, passes, 'wrapper');
    out.write(`c ${TOKEN}\n`);
    again();
    expect(passes).toEqual(['stream', 'wrapper']);
    expect(text()).toBe('a vr_…cdef\nb vr_…cdef\nc vr_…cdef\n');
  });
});
