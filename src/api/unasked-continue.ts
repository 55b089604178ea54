/**
 * A `100 Continue` that no request asked for. vredact sends no `Expect: 100-continue`, and undici
 * fails any answer that begins with a 100 as a "bad response", destroying the connection; but RFC
 * 9110 (15.2) has a client read and pass over any 1xx before the final answer, even one it did not
 * expect. Servers and proxies send them: a proxy that adds `Expect` on its way to the service and
 * relays the service's 100 back, a server that sends one to every POST. Each upload then failed as a
 * lost connection ("the service may have taken it"), and every other request alike. Here a 100 (its
 * status line, headers and the blank line that ends them) is dropped from where an answer begins,
 * before undici reads it; undici itself reads the other 1xx (102, 103), and a 100 after one of them
 * is dropped too.
 */
import type { Socket } from 'node:net';
import type { Connector } from './early-answer.js';

/** An answer's status line up to its code: `HTTP/1.1 ` or `HTTP/1.0 `. */
const STATUS_PREFIX = Buffer.from('HTTP/1.1 ');
/**
 * Most bytes held while deciding whether an answer begins with a 100: a 100 with headers larger than
 * this is left to undici, which fails it as before.
 */
const MAX_HELD = 16 * 1024;

// A request's line, as undici writes it at the start of a request: where the next answer begins.
const REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/1\.1\r\n/;
/** A method and its space: what a write must begin with to be looked at further. */
const METHOD_START = /^[A-Z]{1,16} /;
/**
 * Longest request line looked for: a file host's URL carries a signature of hundreds of characters
 * (a line cut shorter would start no answer, and its 100 would fail the request).
 */
const MAX_REQUEST_LINE = 16 * 1024;

/**
 * What an answer's start is, as far as it has come: a 100 to drop, another interim answer (102, 103)
 * that undici reads but after which the final answer may still begin with a 100, anything else, or
 * not known yet. A 101 ends HTTP on the connection: it is no interim answer here.
 */
function startKind(head: Buffer): 'continue' | 'interim' | 'no' | 'maybe' {
  const length = Math.min(head.length, STATUS_PREFIX.length + 4);
  for (let i = 0; i < length; i++) {
    const byte = head[i] as number;
    if (i < STATUS_PREFIX.length) {
      // The minor version digit: 1.1 or 1.0.
      if (i === 7 ? byte !== 0x31 && byte !== 0x30 : byte !== STATUS_PREFIX[i]) return 'no';
    } else if (i === STATUS_PREFIX.length) {
      if (byte !== 0x31) return 'no';
    } else if (i < STATUS_PREFIX.length + 3) {
      if (byte < 0x30 || byte > 0x39) return 'no';
    } else {
      if (byte !== 0x20 && byte !== 0x0d) return 'no';
      const code = head.toString('latin1', STATUS_PREFIX.length, STATUS_PREFIX.length + 3);
      return code === '100' ? 'continue' : code === '101' ? 'no' : 'interim';
    }
  }
  return 'maybe';
}

const INCOMPLETE = -1;
const MALFORMED = -2;

/**
 * Where a 100's header block ends (past its blank line), INCOMPLETE while it has not come, or
 * MALFORMED at a line that ends in a bare LF: undici refuses such an answer, and it is handed on for
 * undici to say so at once, not held (with the final answer behind it) until the request's timeout.
 */
function headersEnd(bytes: Buffer): number {
  for (let lf = bytes.indexOf(0x0a); lf !== -1; lf = bytes.indexOf(0x0a, lf + 1)) {
    if (bytes[lf - 1] !== 0x0d) return MALFORMED;
    if (lf >= 3 && bytes[lf - 2] === 0x0a) return lf + 1;
  }
  return INCOMPLETE;
}

function startsRequest(chunk: unknown): boolean {
  const text =
    typeof chunk === 'string'
      ? chunk.slice(0, MAX_REQUEST_LINE)
      : Buffer.isBuffer(chunk)
        ? // Most writes are a body's: only one that begins as a request is decoded as far as its line.
          METHOD_START.test(chunk.toString('latin1', 0, 17))
          ? chunk.toString('latin1', 0, MAX_REQUEST_LINE)
          : ''
        : '';
  return REQUEST_LINE.test(text);
}

/** Makes `socket` drop a 100 Continue where an answer begins (after a request's line is written). */
export function skipUnaskedContinue(socket: Socket): Socket {
  let answerStart = false;
  let held: Buffer | undefined;
  const push = socket.push.bind(socket);

  const write = socket._write.bind(socket);
  socket._write = (chunk, encoding, done) => {
    if (startsRequest(chunk)) answerStart = true;
    write(chunk, encoding, done);
  };
  const writev = socket._writev?.bind(socket);
  if (writev)
    socket._writev = (chunks, done) => {
      if (chunks.some(({ chunk }) => startsRequest(chunk))) answerStart = true;
      writev(chunks, done);
    };

  const release = (): boolean => {
    const bytes = held;
    held = undefined;
    answerStart = false;
    return bytes === undefined || bytes.length === 0 ? true : push(bytes);
  };

  socket.push = (chunk: unknown, encoding?: BufferEncoding): boolean => {
    if (!answerStart || chunk === null || chunk === undefined) {
      const flushed = held === undefined ? true : release();
      return chunk === null || chunk === undefined ? push(chunk) : flushed && push(chunk, encoding);
    }
    // A socket's chunk is a Buffer of its own, read as it is: no copy but where pieces are joined.
    const piece = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    let bytes = held ? Buffer.concat([held, piece]) : piece;
    held = undefined;
    let passed = true;
    for (;;) {
      const state = startKind(bytes);
      if (state === 'no') {
        held = bytes;
        return release() && passed;
      }
      const end = state === 'maybe' ? INCOMPLETE : headersEnd(bytes);
      if (end === MALFORMED) {
        held = bytes;
        return release() && passed;
      }
      if (end === INCOMPLETE) {
        held = bytes;
        return bytes.length > MAX_HELD ? release() && passed : passed;
      }
      // An interim answer is undici's to read; the final answer after it is looked at in turn.
      if (state === 'interim') passed = push(bytes.subarray(0, end)) && passed;
      bytes = bytes.subarray(end);
      if (bytes.length === 0) return passed;
    }
  };
  return socket;
}

/** `connect`, whose sockets drop a 100 Continue no request asked for. */
export function skippingUnaskedContinue(connect: Connector): Connector {
  return (options, callback) =>
    connect(options, (error, socket) => {
      if (socket) skipUnaskedContinue(socket as Socket);
      // undici's callback takes (error, null) or (null, socket).
      (callback as (error: Error | null, socket: unknown) => void)(error, socket);
    });
}
