import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  ConnectionError,
  ConnectTimeoutError,
  failsEveryRequest,
  HostNotFoundError,
  StalledError,
  TimeoutError,
  TlsHandshakeError,
  UnreadableAnswerError,
} from '../../src/api/errors.js';
import { LINK_HOST_HINT, linkHost } from '../../src/api/answer-hints.js';
import { isRetryableByDefault } from '../../src/api/retry.js';
import { uploadMayHaveBeenAccepted, uploadSafeToResend } from '../../src/api/upload-fate.js';
import {
  BodyReadError,
  contentLengthOf,
  headerValue,
  hostPort,
  networkError,
  peek,
  taggedBody,
} from '../../src/api/transport.js';

const bytes = (...chunks: string[]) => Readable.from(chunks.map((chunk) => Buffer.from(chunk)));

async function collect(body: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

const withCode = (code: string, message = `${code}: injected`) => Object.assign(new Error(message), { code });

describe('reading bodies', () => {
  it('peek gives the first bytes and a stream that still holds them', async () => {
    const { head, all } = await peek(bytes('RI', 'FF', '....WAVE'), 4);
    expect(head.toString()).toBe('RIFF');
    expect(await collect(all)).toBe('RIFF....WAVE');
    const short = await peek(bytes('ab'), 12);
    expect(short.head.toString()).toBe('ab');
    expect(await collect(short.all)).toBe('ab');
  });

  it('taggedBody passes the bytes through and marks a read failure as a BodyReadError', async () => {
    expect(await collect(taggedBody(bytes('x', 'y')))).toBe('xy');
    const cause = withCode('ECONNRESET');
    async function* failing() {
      yield Buffer.from('x');
      throw cause;
    }
    const failure = await collect(taggedBody(failing())).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BodyReadError);
    expect((failure as BodyReadError).original).toBe(cause);
  });

  it('taggedBody closes the body when its reader stops early (a body cut off past its cap)', async () => {
    const body = bytes('a', 'b', 'c');
    for await (const chunk of taggedBody(body)) {
      expect(Buffer.from(chunk).toString()).toBe('a');
      break;
    }
    expect(body.destroyed).toBe(true);
    const whole = bytes('a', 'b');
    expect(await collect(taggedBody(whole))).toBe('ab');
  });
});

describe('headers', () => {
  it('headerValue takes the first of a repeated header, and "" for a missing one', () => {
    expect(headerValue({ 'content-type': 'audio/wav' }, 'content-type')).toBe('audio/wav');
    expect(headerValue({ 'set-cookie': ['a=1', 'b=2'] }, 'set-cookie')).toBe('a=1');
    expect(headerValue({}, 'content-type')).toBe('');
  });

  it('contentLengthOf reads only a plain number', () => {
    expect(contentLengthOf({ 'content-length': '1234' })).toBe(1234);
    expect(contentLengthOf({ 'content-length': '0' })).toBe(0);
    expect(contentLengthOf({ 'content-length': '-1' })).toBeUndefined();
    expect(contentLengthOf({ 'content-length': '12, 12' })).toBeUndefined();
    expect(contentLengthOf({})).toBeUndefined();
  });

  it('hostPort spells out the default port of the scheme', () => {
    expect(hostPort(new URL('https://api.example.com/x'))).toBe('api.example.com:443');
    expect(hostPort(new URL('http://api.example.com/x'))).toBe('api.example.com:80');
    expect(hostPort(new URL('http://127.0.0.1:8787/'))).toBe('127.0.0.1:8787');
  });
});

describe('networkError', () => {
  const url = new URL('https://api.example.com/api/jobs');

  it.each([
    ['ECONNREFUSED', 'connection refused'],
    ['EAI_AGAIN', 'host name lookup failed'],
    ['EHOSTUNREACH', 'host unreachable'],
    ['ENETUNREACH', 'network unreachable'],
  ])('%s: the request never left (a refused ConnectionError naming the host)', (code, text) => {
    const error = networkError(withCode(code), 'listing jobs', url);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).refused).toBe(true);
    expect((error as Error).message).toBe(`listing jobs: cannot connect to api.example.com:443 (${text})`);
  });

  it('ENOTFOUND: the host does not exist (a refused HostNotFoundError naming it and the URL to check)', () => {
    const error = networkError(withCode('ENOTFOUND'), 'listing jobs', url);
    expect(error).toBeInstanceOf(HostNotFoundError);
    expect((error as ConnectionError).refused).toBe(true);
    expect((error as Error).message).toBe('listing jobs: the host api.example.com was not found');
    expect((error as ConnectionError).hint).toBe('check the service URL (`vredact config get base-url`)');
  });

  it('a code on the cause counts too', () => {
    const error = networkError(
      Object.assign(new Error('fetch failed'), { cause: withCode('ECONNREFUSED') }),
      'x',
      url,
    );
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).refused).toBe(true);
  });

  it('a connect timeout is a ConnectTimeoutError; a header or body timeout a TimeoutError', () => {
    const connect = networkError(withCode('UND_ERR_CONNECT_TIMEOUT'), 'listing jobs', url);
    expect(connect).toBeInstanceOf(ConnectTimeoutError);
    expect((connect as Error).message).toContain('timed out');
    for (const code of ['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']) {
      const error = networkError(withCode(code), 'listing jobs', url);
      expect(error).toBeInstanceOf(TimeoutError);
      expect(error).not.toBeInstanceOf(ConnectTimeoutError);
      expect((error as Error).message).toContain(code);
    }
  });

  it('a body that stops coming after its headers is a StalledError that says it stalled; a header timeout is none', () => {
    const body = networkError(withCode('UND_ERR_BODY_TIMEOUT'), 'downloading a.wav', url);
    expect(body).toBeInstanceOf(StalledError);
    expect((body as Error).message).toMatch(
      /: \S+ stalled: its answer stopped coming \(no byte within --timeout/,
    );
    expect((body as StalledError).hint).toMatch(/^try again later/);
    expect(networkError(withCode('UND_ERR_HEADERS_TIMEOUT'), 'x', url)).not.toBeInstanceOf(StalledError);
  });

  it('a connection dropped mid-way may have reached the service: not "refused"', () => {
    const error = networkError(withCode('ECONNRESET'), 'redacting a.wav');
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).refused).toBe(false);
    expect((error as Error).message).toBe(
      'redacting a.wav: network error talking to the service (the connection was reset, ECONNRESET)',
    );
  });

  it.each([
    ['UND_ERR_SOCKET', 'the connection was closed before the answer was complete'],
    ['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'the answer was not as long as its Content-Length said'],
    ['EPIPE', 'the connection was closed while the request was sent'],
  ])('%s is said in words, the code kept for a search', (code, words) => {
    const error = networkError(withCode(code), 'listing jobs', url);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toBe(
      `listing jobs: network error talking to api.example.com:443 (${words}, ${code})`,
    );
  });

  it.each([
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'self-signed'],
    ['CERT_HAS_EXPIRED', 'expired'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'issued for another host name'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'issued by an authority this machine does not trust'],
  ])(
    '%s: the certificate is named, with what to do; not retried, and an upload it stopped never left',
    (code, text) => {
      const error = networkError(withCode(code), 'redacting a.wav', url);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as Error).message).toBe(
        `redacting a.wav: the TLS certificate of api.example.com:443 is not trusted (${text})`,
      );
      expect((error as ApiError).hint).toContain('NODE_EXTRA_CA_CERTS');
      expect(isRetryableByDefault(error)).toBe(false);
      expect(uploadSafeToResend(error)).toBe(false);
      expect(uploadMayHaveBeenAccepted(error)).toBe(false);
    },
  );

  it("a download link's host is named as itself, with its own next step, never the service URL", () => {
    const link = new URL('https://files.example/f/a.wav?sig=1');
    const other = linkHost(link, link).other;
    const cases: Array<[string, string, string]> = [
      [
        'ECONNREFUSED',
        "cannot connect to the download link's host files.example:443 (connection refused)",
        LINK_HOST_HINT,
      ],
      ['ENOTFOUND', "the download link's host files.example:443 was not found", LINK_HOST_HINT],
      [
        'UND_ERR_CONNECT_TIMEOUT',
        "cannot connect to the download link's host files.example:443 (timed out)",
        LINK_HOST_HINT,
      ],
      [
        'UND_ERR_HEADERS_TIMEOUT',
        "the download link's host files.example:443 did not answer in time (UND_ERR_HEADERS_TIMEOUT)",
        'raise --timeout, or try again later',
      ],
      [
        'ECONNRESET',
        "network error talking to the download link's host files.example:443 (the connection was reset, ECONNRESET)",
        LINK_HOST_HINT,
      ],
    ];
    for (const [code, message, hint] of cases) {
      const error = networkError(withCode(code), 'downloading a.wav', link, undefined, other) as ApiError;
      expect(error.message).toBe(`downloading a.wav: ${message}`);
      expect(error.hint).toBe(hint);
    }
    const certificate = networkError(
      withCode('CERT_HAS_EXPIRED'),
      'downloading a.wav',
      link,
      undefined,
      other,
    );
    expect((certificate as ApiError).hint).toContain('NODE_EXTRA_CA_CERTS');
    expect((certificate as ApiError).hint).not.toContain('base-url');
    expect(isRetryableByDefault(certificate)).toBe(false);
  });

  it('aborts and things that are not errors pass through untouched', () => {
    const abort = new DOMException('stopped', 'AbortError');
    expect(networkError(abort, 'x', url)).toBe(abort);
    const coded = withCode('ABORT_ERR');
    expect(networkError(coded, 'x', url)).toBe(coded);
    expect(networkError('text', 'x', url)).toBe('text');
  });

  it("an answer that is not HTTP (undici's parser error, with no code): unreadable, not retried, the upload may have been kept", () => {
    const parser = Object.assign(
      new Error('Response does not match the HTTP/1.1 protocol (Expected HTTP/, RTSP/ or ICE/)'),
      { name: 'HTTPParserError', code: undefined },
    );
    const error = networkError(parser, 'redacting a.wav', new URL('http://127.0.0.1:22/x'));
    expect(error).toBeInstanceOf(UnreadableAnswerError);
    expect((error as Error).message).toBe(
      'redacting a.wav: 127.0.0.1:22 answered something that is not HTTP/1.1 (Expected HTTP/, RTSP/ or ICE/)',
    );
    expect((error as ApiError).hint).toContain('something that is not an HTTP server listens there');
    expect(isRetryableByDefault(error)).toBe(false);
    expect(uploadMayHaveBeenAccepted(error)).toBe(true);
  });

  it("headers past undici's limit: unreadable, with their own hint", () => {
    const error = networkError(withCode('UND_ERR_HEADERS_OVERFLOW'), 'listing jobs', url);
    expect(error).toBeInstanceOf(UnreadableAnswerError);
    expect((error as Error).message).toBe(
      'listing jobs: api.example.com:443 answered with headers larger than vredact reads (UND_ERR_HEADERS_OVERFLOW)',
    );
    expect((error as ApiError).hint).toContain("report this answer to the service's operators");
  });

  it('a TLS handshake with a port that speaks no TLS: nothing was sent, every request would meet it', () => {
    const error = networkError(withCode('ERR_SSL_WRONG_VERSION_NUMBER'), 'redacting a.wav', url);
    expect(error).toBeInstanceOf(TlsHandshakeError);
    expect((error as Error).message).toBe(
      'redacting a.wav: the TLS handshake with api.example.com:443 failed (wrong version number: it does not speak TLS on that port, ERR_SSL_WRONG_VERSION_NUMBER)',
    );
    expect(failsEveryRequest(error)).toBe(true);
    expect(isRetryableByDefault(error)).toBe(false);
    expect(uploadMayHaveBeenAccepted(error)).toBe(false);
    // Node's https names it EPROTO on Node.js 22 and 24, with OpenSSL's reason in its message.
    const eproto = networkError(
      withCode(
        'EPROTO',
        'write EPROTO 400D:error:0A00010B:SSL routines:tls_validate_record_header:wrong version number',
      ),
      'x',
      url,
    );
    expect(eproto).toBeInstanceOf(TlsHandshakeError);
    // A TLS failure mid-stream is a dropped connection, as before.
    expect(networkError(withCode('ERR_SSL_DECRYPTION_FAILED_OR_BAD_RECORD_MAC'), 'x', url)).toBeInstanceOf(
      ConnectionError,
    );
  });
});
