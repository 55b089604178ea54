/**
 * Requests that Node's HTTP parser refuses before any handler sees them (headers over its limit,
 * bytes that are not HTTP, a request that took too long). Node's own answer to them is a bare
 * status line; the sandbox gives them the listener's error body, like every other answer it sends.
 */
import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

export interface ErrorBody {
  contentType: string;
  text: string;
}

/** The status Node itself would answer with, and a message naming the cause. */
export function clientErrorStatus(code: string | undefined): { status: number; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: 'the request headers are too large' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, message: 'the chunk extensions of the request are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'the request did not arrive in time' };
    default:
      return { status: 400, message: `the request is not valid HTTP${code ? ` (${code})` : ''}` };
  }
}

/**
 * A `clientError` listener that answers on the bare socket, under Node's own conditions: not after a
 * reset, and not when an answer on this connection has already started (`answering` holds the
 * answer under way on each connection; its bytes would be corrupted). The connection is closed.
 */
export function answerClientErrors(
  answering: WeakMap<Duplex, ServerResponse>,
  body: (status: number, message: string) => ErrorBody,
): (error: Error & { code?: string }, socket: Duplex) => void {
  return (error, socket) => answerClientError(error, socket, answering.get(socket), body);
}

function answerClientError(
  error: Error & { code?: string },
  socket: Duplex,
  inFlight: ServerResponse | undefined,
  body: (status: number, message: string) => ErrorBody,
): void {
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const { status, message } = clientErrorStatus(error.code);
  const { contentType, text } = body(status, message);
  const head =
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    `content-type: ${contentType}\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n`;
  socket.end(head + text, () => socket.destroy());
}
