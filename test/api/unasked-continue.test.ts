import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { skipUnaskedContinue } from '../../src/api/unasked-continue.js';

/** A socket whose writes go nowhere and whose received bytes are what the test pushes. */
function socketPair() {
  const socket = skipUnaskedContinue(
    new Duplex({
      write(_chunk, _encoding, done) {
        done();
      },
      read() {},
    }) as unknown as Socket,
  );
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  const write = (text: string) => new Promise<void>((resolve) => socket.write(text, () => resolve()));
  const read = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    return Buffer.concat(received.splice(0)).toString('latin1');
  };
  return { socket, write, read };
}

const ANSWER = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';

describe('a 100 Continue no request asked for', () => {
  it('is dropped where an answer begins, whole, in pieces, or twice; the answer passes as it came', async () => {
    const { socket, write, read } = socketPair();
    await write('POST /api/x HTTP/1.1\r\nhost: h\r\n\r\n');
    socket.push(Buffer.from(`HTTP/1.1 100 Continue\r\n\r\n${ANSWER}`));
    expect(await read()).toBe(ANSWER);

    await write('GET /api/jobs HTTP/1.1\r\nhost: h\r\n\r\n');
    for (const piece of [
      'HTTP/1.',
      '0 100 Continue\r',
      '\nVia: proxy\r\n\r',
      '\nHTTP/1.1 100 Con',
      'tinue\r\n\r\n',
      ANSWER,
    ])
      socket.push(Buffer.from(piece));
    expect(await read()).toBe(ANSWER);
  });

  it('leaves every other answer, and bytes within an answer, untouched', async () => {
    const { socket, write, read } = socketPair();
    await write('GET /api/jobs HTTP/1.1\r\nhost: h\r\n\r\n');
    socket.push(Buffer.from('HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n'));
    socket.push(Buffer.from(ANSWER));
    // Past the answer's start, what looks like a 100 is the answer's own bytes.
    socket.push(Buffer.from('HTTP/1.1 100 Continue\r\n\r\n'));
    expect(await read()).toBe(
      `HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n${ANSWER}HTTP/1.1 100 Continue\r\n\r\n`,
    );
    // A body written after its request's line starts no answer.
    await write('RIFF....WAVEfmt ');
    socket.push(Buffer.from('HTTP/1.1 100 Continue\r\n\r\n'));
    expect(await read()).toBe('HTTP/1.1 100 Continue\r\n\r\n');
  });

  it('is dropped after an interim answer undici reads (103, 102), which passes as it came', async () => {
    const { socket, write, read } = socketPair();
    const hints = 'HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n';
    await write('POST /api/redact HTTP/1.1\r\nhost: h\r\n\r\n');
    socket.push(Buffer.from(`${hints}HTTP/1.1 100 Continue\r\n\r\n${ANSWER}`));
    expect(await read()).toBe(`${hints}${ANSWER}`);

    await write('GET /api/jobs HTTP/1.1\r\nhost: h\r\n\r\n');
    for (const piece of ['HTTP/1.1 10', '2 Processing\r\n\r', '\nHTTP/1.1 1', '00 Continue\r\n\r\n', ANSWER])
      socket.push(Buffer.from(piece));
    expect(await read()).toBe(`HTTP/1.1 102 Processing\r\n\r\n${ANSWER}`);

    // A 101 is no interim answer: what follows it is not looked at.
    await write('GET /api/jobs HTTP/1.1\r\nhost: h\r\n\r\n');
    socket.push(Buffer.from('HTTP/1.1 101 Switching Protocols\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n'));
    expect(await read()).toBe('HTTP/1.1 101 Switching Protocols\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n');
  });

  it('a start held for a decision is handed on at the end of the stream, or past its bound', async () => {
    const { socket, write, read } = socketPair();
    await write('GET /api/jobs HTTP/1.1\r\nhost: h\r\n\r\n');
    socket.push(Buffer.from('HTTP/1.1 100 Continue\r\nX: y'));
    expect(await read()).toBe('');
    socket.push(null);
    expect(await read()).toBe('HTTP/1.1 100 Continue\r\nX: y');

    const long = socketPair();
    await long.write('GET /api/jobs HTTP/1.1\r\nhost: h\r\n\r\n');
    const huge = `HTTP/1.1 100 Continue\r\nX: ${'y'.repeat(17 * 1024)}`;
    long.socket.push(Buffer.from(huge));
    expect(await long.read()).toBe(huge);
  });
});

describe('where an answer begins', () => {
  it('follows a request whose line is long (a file host URL with its signature), however undici writes it', async () => {
    const path = `/results/a.wav?X-Signature=${'f'.repeat(600)}`;
    const { socket, write, read } = socketPair();
    await write(`GET ${path} HTTP/1.1\r\nhost: h\r\n\r\n`);
    socket.push(Buffer.from(`HTTP/1.1 100 Continue\r\n\r\n${ANSWER}`));
    expect(await read()).toBe(ANSWER);

    // Corked: the request's line and headers reach the socket as one `_writev`.
    socket.cork();
    socket.write(`POST ${path} HTTP/1.1\r\n`);
    socket.write('host: h\r\n\r\n');
    const written = new Promise<void>((resolve) => socket.write('{}', () => resolve()));
    socket.uncork();
    await written;
    socket.push(Buffer.from(`HTTP/1.1 100 Continue\r\n\r\n${ANSWER}`));
    expect(await read()).toBe(ANSWER);
  });

  it('is looked at only at a split of every byte of a 100 and its answer, and never in a body', async () => {
    const whole = `HTTP/1.1 100 Continue\r\nVia: p\r\n\r\n${ANSWER}`;
    for (let cut = 1; cut < whole.length; cut++) {
      const { socket, write, read } = socketPair();
      await write('GET /api/jobs HTTP/1.1\r\nhost: h\r\n\r\n');
      socket.push(Buffer.from(whole.slice(0, cut)));
      socket.push(Buffer.from(whole.slice(cut)));
      expect(await read(), `cut at ${cut}`).toBe(ANSWER);
    }
    // A body that reads as a 100, split where its answer's head ends.
    const { socket, write, read } = socketPair();
    await write('GET /api/jobs HTTP/1.1\r\nhost: h\r\n\r\n');
    const head = 'HTTP/1.1 200 OK\r\nContent-Length: 25\r\n\r\n';
    socket.push(Buffer.from(head));
    socket.push(Buffer.from('HTTP/1.1 100 Continue\r\n\r\n'));
    expect(await read()).toBe(`${head}HTTP/1.1 100 Continue\r\n\r\n`);
  });

  it('hands on at once a 100 whose lines end in a bare LF, for undici to refuse, rather than hold its answer', async () => {
    for (const continued of ['HTTP/1.1 100 Continue\n\n', 'HTTP/1.1 100 Continue\r\nVia: p\n\r\n']) {
      const { socket, write, read } = socketPair();
      await write('GET /api/jobs HTTP/1.1\r\nhost: h\r\n\r\n');
      socket.push(Buffer.from(`${continued}${ANSWER}`));
      expect(await read()).toBe(`${continued}${ANSWER}`);
    }
  });
});
