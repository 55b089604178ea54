/** Answers that are no HTTP answer: a TLS handshake that fails before any certificate, bytes undici cannot read. */
import { type BaseUrlSource, notHttpHint, oversizedHeadersHint } from './base-url-hints.js';

/**
 * TLS handshakes that fail before a certificate is judged, in words: the host does not speak TLS
 * there, or no protocol version is common. Other TLS failures (a bad record mid-stream) are dropped
 * connections.
 */
const TLS_HANDSHAKE_PROBLEMS = new Map([
  ['ERR_SSL_WRONG_VERSION_NUMBER', 'wrong version number: it does not speak TLS on that port'],
  ['ERR_SSL_PACKET_LENGTH_TOO_LONG', 'it does not speak TLS on that port'],
  ['ERR_SSL_UNSUPPORTED_PROTOCOL', 'no TLS version in common'],
  ['ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', 'no TLS version in common'],
  ['ERR_SSL_NO_PROTOCOLS_AVAILABLE', 'no TLS version in common'],
  ['ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', 'the host refused the handshake'],
]);

/**
 * What a host answered that undici could not read, in words, and what to do: not HTTP at all (its
 * parser's HTTPParserError, whose `code` may be unset), or headers past its limit. Undefined for any
 * other failure.
 */
export function unreadable(
  error: Error,
  code: string,
  source: BaseUrlSource,
): { words: string; hint: string } | undefined {
  if (error.name === 'HTTPParserError' || code.startsWith('HPE_')) {
    // undici says "Response does not match the HTTP/1.1 protocol (<what>)": the <what> is news.
    const inner = /\((.+)\)$/.exec(error.message)?.[1] ?? error.message;
    return { words: `something that is not HTTP/1.1 (${inner})`, hint: notHttpHint(source) };
  }
  if (code === 'UND_ERR_HEADERS_OVERFLOW') {
    return { words: `with headers larger than vredact reads (${code})`, hint: oversizedHeadersHint(source) };
  }
  return undefined;
}

/**
 * A TLS handshake that failed before a certificate was judged, in words; undefined for any other
 * failure. Node's own sockets may name it EPROTO, with OpenSSL's reason in the message.
 */
export function tlsHandshakeWords(error: Error, code: string): string | undefined {
  const words = TLS_HANDSHAKE_PROBLEMS.get(code);
  if (words || code !== 'EPROTO' || !/wrong version number/.test(error.message)) return words;
  return TLS_HANDSHAKE_PROBLEMS.get('ERR_SSL_WRONG_VERSION_NUMBER');
}
