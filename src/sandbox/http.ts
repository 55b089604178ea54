/** Small helpers for answering with node:http: JSON and error bodies, reading JSON, discarding uploads. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DRAIN_LIMIT_BYTES } from './limits.js';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendText(res, status, 'application/json; charset=utf-8', JSON.stringify(body), headers);
}

/** The interface's error body: `{"error": <status>, "message": "..."}`. */
export function errorBody(status: number, message: string): { error: number; message: string } {
  return { error: status, message };
}

export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, errorBody(status, message), headers);
}

export function sendText(
  res: ServerResponse,
  status: number,
  contentType: string,
  text: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads a small JSON body; a BodyError (400 or 413) when it is not JSON or too long. A body over
 * the limit is still read to its end (and thrown away) so that the error answer reaches the client.
 */
export function readJsonBody(req: IncomingMessage, limit = 64 * 1024): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLong = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (tooLong) {
        if (size > DRAIN_LIMIT_BYTES) req.socket.destroy();
        return;
      }
      if (size > limit) {
        tooLong = true;
        chunks.length = 0;
        reject(new BodyError(413, `the request body is larger than ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', reject);
    req.on('end', () => {
      if (tooLong) return;
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return resolve(undefined);
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(new BodyError(400, 'the request body is not valid JSON'));
      }
    });
  });
}

/**
 * Throws away what is left of a request body after an early answer, so the client can read that
 * answer instead of failing on a half-sent upload; a body beyond DRAIN_LIMIT_BYTES cuts the connection.
 */
export function discardBody(req: IncomingMessage, limit = DRAIN_LIMIT_BYTES): void {
  if (req.complete || req.destroyed) return;
  let seen = 0;
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > limit) req.socket.destroy();
  });
  req.on('error', () => {});
  req.resume();
}

/** The path of a request URL without its query, or undefined when it cannot be parsed. */
export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** Reads a JSON body, answering the error itself when it is too large or not JSON; `ok: false` then. */
export async function readJsonBodyOrReply(
  req: IncomingMessage,
  res: ServerResponse,
): Promise<{ ok: true; body: unknown } | { ok: false }> {
  try {
    return { ok: true, body: await readJsonBody(req) };
  } catch (error) {
    if (!(error instanceof BodyError)) throw error;
    sendError(res, error.status, error.message);
    return { ok: false };
  }
}
