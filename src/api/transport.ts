/** Low-level pieces of the client: reading bodies, headers, and naming network failures. */
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { ExitCode } from '../errors.js';
import {
  CertificateError,
  ConnectionError,
  ConnectTimeoutError,
  HostNotFoundError,
  InvalidResponseError,
  StalledError,
  TimeoutError,
  TlsHandshakeError,
  UnreadableAnswerError,
} from './errors.js';
import { LOW_SPEED_BYTES } from './low-speed.js';
import {
  type BaseUrlSource,
  checkUrlHint,
  isUrlRightHint,
  plainPortHint,
  urlAndNetworkHint,
} from './base-url-hints.js';
import { tlsHandshakeWords, unreadable } from './protocol-failures.js';
import { type ProxyRoute, proxyHint, proxyShown, tunnelRefusal } from './proxy.js';

export type Headers = Dispatcher.ResponseData['headers'];

/**
 * Closes a body whatever was read of it. undici closes a body nobody read with an abort error,
 * raised a tick later; with no listener that error would end the process, so it is swallowed here.
 */
export function closeBody(body: unknown): void {
  const stream = body as Partial<Readable>;
  if (typeof stream.destroy !== 'function') return;
  stream.on?.('error', ignoreError);
  stream.destroy();
}

function ignoreError(): void {}

/** The chunk as a Buffer over the same memory (undici's chunks already are Buffers: no copy). */
function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** Reads the first `n` bytes of a stream and hands back the whole stream, those bytes included. */
export async function peek(
  body: AsyncIterable<Uint8Array>,
  n: number,
): Promise<{ head: Buffer; all: AsyncIterable<Uint8Array> }> {
  const iterator = body[Symbol.asyncIterator]();
  const seen: Buffer[] = [];
  let size = 0;
  while (size < n) {
    const next = await iterator.next();
    if (next.done) break;
    const buffer = asBuffer(next.value);
    seen.push(buffer);
    size += buffer.length;
  }
  const head = seen.length === 1 ? (seen[0] as Buffer) : Buffer.concat(seen);
  async function* all() {
    if (head.length) yield head;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { head, all: all() };
}

/** Marks an error thrown while reading a response body, so it is told from a sink's own errors. */
export class BodyReadError extends Error {
  constructor(readonly original: unknown) {
    super('body read failed');
  }
}

/**
 * The body as an iterable whose read failures are tagged as BodyReadError. A reader that stops early
 * (a result or download cut off past its cap) closes the body: left open, an endless one would hold
 * its connection, and closing the client would wait on it for ever.
 */
export async function* taggedBody(body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  const iterator = body[Symbol.asyncIterator]();
  let done = false;
  try {
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await iterator.next();
      } catch (error) {
        done = true;
        // Bytes read whole that do not decode are an invalid answer, not a failed read.
        if (error instanceof InvalidResponseError) throw error;
        throw new BodyReadError(error);
      }
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!done) await iterator.return?.();
  }
}

export function headerValue(headers: Headers, name: string): string {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

export function contentLengthOf(headers: Headers): number | undefined {
  const text = headerValue(headers, 'content-length');
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

const NETWORK_TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT']);
/** What to do about an answer that stalled on its way (StalledError). */
const STALLED_HINT = 'try again later; raise --timeout only if the network is that slow';
/** Failures to reach the host at all: the request never left, whatever the method. */
const UNREACHABLE = new Map([
  ['ECONNREFUSED', 'connection refused'],
  ['EAI_AGAIN', 'host name lookup failed'],
  ['EHOSTUNREACH', 'host unreachable'],
  ['ENETUNREACH', 'network unreachable'],
]);

/** What a dropped or garbled connection's code means, said in words (undici's codes alone say little). */
const DROPPED = new Map([
  ['ECONNRESET', 'the connection was reset'],
  ['EPIPE', 'the connection was closed while the request was sent'],
  ['UND_ERR_SOCKET', 'the connection was closed before the answer was complete'],
  ['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'the answer was not as long as its Content-Length said'],
]);

/** Node's names for a server certificate it refuses, in words; other certificate codes say "(<code>)". */
const CERTIFICATE_PROBLEMS = new Map([
  ['DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed'],
  ['SELF_SIGNED_CERT_IN_CHAIN', 'self-signed'],
  ['CERT_HAS_EXPIRED', 'expired'],
  ['CERT_NOT_YET_VALID', 'not valid yet'],
  ['ERR_TLS_CERT_ALTNAME_INVALID', 'issued for another host name'],
  ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'issued by an authority this machine does not trust'],
  ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'issued by an authority this machine does not trust'],
  ['UNABLE_TO_GET_ISSUER_CERT', 'issued by an authority this machine does not trust'],
  ['CERT_UNTRUSTED', 'issued by an authority this machine does not trust'],
]);
const CERTIFICATE_CODE = /CERT|^UNABLE_TO_|^HOSTNAME_MISMATCH$|^INVALID_CA$/;

/** `host:port` of a URL, with the scheme's default port spelled out. */
export function hostPort(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.hostname}:${port}`;
}

/**
 * A host other than the service's (a download link's), as network failures name it. The service URL
 * plays no part in reaching it, so its failures say what fits that host instead.
 */
export interface OtherHost {
  /** `the download link's host files.example:443`. */
  name: string;
  /** What to do when it cannot be reached, or drops the connection. */
  hint: string;
  /** What to do when its TLS certificate is not trusted. */
  certificateHint: string;
}

/**
 * Turns undici's and the socket's errors into the client's typed errors, naming where; aborts pass
 * through. Through a proxy (`route`), a connection that cannot be made is the proxy's; `other`: the
 * host is not the service's, and is named as it says. `baseUrlSource`: where the service's URL came
 * from, which its hints name.
 */
export function networkError(
  error: unknown,
  what: string,
  url?: URL,
  route?: ProxyRoute,
  other?: OtherHost,
  baseUrlSource?: BaseUrlSource,
): unknown {
  if (!(error instanceof Error)) return error;
  const refusal = route && url ? tunnelRefusal(error, what, url, route) : undefined;
  if (refusal) return refusal;
  if (error.name === 'AbortError' || (error as { code?: string }).code === 'ABORT_ERR') return error;
  const code =
    (error as { code?: string }).code ?? ((error.cause as { code?: string } | undefined)?.code || '');
  const where = other?.name ?? (url ? hostPort(url) : 'the service');
  const connectTo = route ? `the proxy ${proxyShown(route.proxy)}` : where;
  const urlHint = isUrlRightHint(baseUrlSource);
  const connectHint = route ? proxyHint(route) : (other?.hint ?? urlHint);
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new ConnectTimeoutError(
      `${what}: cannot connect to ${connectTo} (timed out)`,
      undefined,
      undefined,
      1,
      route || !other ? `${connectHint}; is the network up?` : other.hint,
    );
  }
  if (code === 'VREDACT_LOW_SPEED') {
    return new StalledError(
      `${what}: ${where} ${error.message} (at least ${LOW_SPEED_BYTES} are needed in each --timeout)`,
      undefined,
      undefined,
      1,
      STALLED_HINT,
    );
  }
  // Its headers came, then its body stopped: not "did not answer", which sends one to check the URL.
  if (code === 'UND_ERR_BODY_TIMEOUT') {
    return new StalledError(
      `${what}: ${where} stalled: its answer stopped coming (no byte within --timeout, ${code})`,
      undefined,
      undefined,
      1,
      STALLED_HINT,
    );
  }
  if (NETWORK_TIMEOUT_CODES.has(code)) {
    return new TimeoutError(
      `${what}: ${where} did not answer in time (${code})`,
      undefined,
      undefined,
      1,
      'raise --timeout, or try again later',
    );
  }
  if (CERTIFICATE_CODE.test(code)) {
    return new CertificateError(
      `${what}: the TLS certificate of ${where} is not trusted (${CERTIFICATE_PROBLEMS.get(code) ?? code})`,
      undefined,
      undefined,
      ExitCode.partial,
      other?.certificateHint ??
        `${urlHint}; a private certificate authority can be trusted with NODE_EXTRA_CA_CERTS=<its PEM file>`,
    );
  }
  if (code === 'ENOTFOUND') {
    const host = route || other ? connectTo : `the host ${url?.hostname ?? 'of the service'}`;
    return new HostNotFoundError(
      `${what}: ${host} was not found`,
      true,
      route || other ? connectHint : checkUrlHint(baseUrlSource),
    );
  }
  const unreachable = UNREACHABLE.get(code);
  if (unreachable) {
    return new ConnectionError(`${what}: cannot connect to ${connectTo} (${unreachable})`, true, connectHint);
  }
  const via = route ? ` through the proxy ${proxyShown(route.proxy)}` : '';
  const handshake = tlsHandshakeWords(error, code);
  if (handshake) {
    return new TlsHandshakeError(
      `${what}: the TLS handshake with ${where}${via} failed (${handshake}, ${code})`,
      undefined,
      undefined,
      ExitCode.partial,
      other?.hint ?? plainPortHint(baseUrlSource),
    );
  }
  const answer = unreadable(error, code, baseUrlSource);
  if (answer) {
    return new UnreadableAnswerError(
      `${what}: ${where}${via} answered ${answer.words}`,
      other?.hint ?? answer.hint,
    );
  }
  const words = DROPPED.get(code);
  const detail = words ? `${words}, ${code}` : code || error.message;
  return new ConnectionError(
    `${what}: network error talking to ${where}${via} (${detail})`,
    false,
    other?.hint ?? urlAndNetworkHint(baseUrlSource),
  );
}
