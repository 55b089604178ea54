/**
 * An answer that comes before the request is fully sent. Proxies and servers refuse an upload from
 * its headers alone (nginx's 413 past `client_max_body_size`, a 401, a 429), answer at once and close
 * the connection without reading the rest. Node.js destroys a socket on its first failed write
 * (EPIPE, ECONNRESET), and with it the answer already received but not yet read: undici then reports
 * the write's failure, and the refusal reads as a lost connection whose upload the service may have
 * taken (nodejs/node#12339, #54366; undici reads an early answer only when it was read before the
 * write failed). Here such a write failure is held until the socket closes: the bytes already
 * received are read first, so undici hands over the answer, which then decides the upload's fate as
 * any answer does (upload-fate.ts). With no answer, the read side fails at once too (the peer reset
 * the connection) and the request fails as before.
 */
import type { Socket } from 'node:net';
import type { buildConnector } from 'undici';

/** Write failures that mean the peer closed or reset the connection, whose answer may be in. */
const PEER_GONE = new Set(['EPIPE', 'ECONNRESET']);

/**
 * The longest a write failure is held, should the socket not close (its reading paused by a slow
 * reader of the answer): the bytes received are read within one turn of the event loop.
 */
export const WRITE_FAILURE_HOLD_MS = 1_000;

type WriteCallback = (error?: Error | null) => void;

function codeOf(error: Error | null | undefined): string {
  return (error as { code?: string } | null | undefined)?.code ?? '';
}

/** Calls `release` once `socket` has closed, or after WRITE_FAILURE_HOLD_MS. */
function afterClose(socket: Socket, release: () => void): void {
  if (socket.destroyed) {
    release();
    return;
  }
  const done = () => {
    clearTimeout(timer);
    socket.off('close', done);
    release();
  };
  const timer = setTimeout(done, WRITE_FAILURE_HOLD_MS);
  socket.once('close', done);
}

/** Makes `socket` read what it received before a write failure of PEER_GONE ends it. */
export function readBeforeWriteFailure(socket: Socket): Socket {
  const hold =
    (done: WriteCallback): WriteCallback =>
    (error) => {
      if (error && PEER_GONE.has(codeOf(error))) afterClose(socket, () => done(error));
      else done(error);
    };
  // Writable's own hooks, which net.Socket implements: every write ends in one of them.
  const write = socket._write.bind(socket);
  socket._write = (chunk, encoding, done) => write(chunk, encoding, hold(done));
  const writev = socket._writev?.bind(socket);
  if (writev) socket._writev = (chunks, done) => writev(chunks, hold(done));
  return socket;
}

export type Connector = buildConnector.connector;

/** `connect`, whose sockets read an early answer before a write failure ends them. */
export function readingEarlyAnswers(connect: Connector): Connector {
  return (options, callback) =>
    connect(options, (error, socket) => {
      if (socket) readBeforeWriteFailure(socket as Socket);
      // undici's callback takes (error, null) or (null, socket).
      (callback as (error: Error | null, socket: unknown) => void)(error, socket);
    });
}
