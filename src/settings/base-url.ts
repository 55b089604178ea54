/** The one rule of what a service URL may be, and how one is shown. */
import { UsageError } from '../errors.js';
import { isLoopbackHost } from '../net/loopback.js';

/**
 * Checks a base URL: https anywhere, http only on loopback unless the user insists, because the
 * token would otherwise cross the network in clear text.
 */
export function validateBaseUrl(text: string, allowInsecureHttp: boolean): URL {
  const problem = baseUrlProblem(text);
  if (problem) {
    throw new UsageError(
      problem,
      problem.includes('user name')
        ? 'remove the part before "@": the service takes only the usage token (`vredact login`)'
        : problem.includes('a query')
          ? 'remove everything from the "?" or "#": vredact adds the paths of the API itself'
          : problem.includes('no port')
            ? 'write the port after the ":" (https://redaction.example.com:8443), or remove the ":" for the default port'
            : 'set it like https://redaction.example.com',
    );
  }
  const url = new URL(text);
  if (url.protocol === 'https:') return url;
  if (url.protocol !== 'http:')
    throw new UsageError(
      `the service URL must start with https:// (got ${url.protocol}//)`,
      'set it like https://redaction.example.com',
    );
  if (isLoopbackHost(url.hostname) || allowInsecureHttp) return url;
  throw new UsageError(
    `refusing to send the token over plain http to ${url.host}`,
    'use an https:// URL, or pass --allow-insecure-http if you really mean it',
  );
}

/**
 * A base URL as it may be shown: whatever stands between `//` and `@` (a user name, a password) is
 * replaced, and so is a query or a fragment (a signature, a key), so no message, `-v` line or
 * `config list` ever repeats them; `?…` still shows what to remove.
 */
export function displayBaseUrl(text: string): string {
  return text.replace(/\/\/[^/?#]*@/, '//***@').replace(/([?#]).*$/s, '$1…');
}

/** What makes `text` unusable as a base URL whatever the flags (unparsable, user information). */
export function baseUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `the service URL "${displayBaseUrl(text)}" is not a valid URL`;
  }
  if (url.username || url.password || /\/\/[^/?#]*@/.test(text)) {
    return `the service URL must not contain a user name or password (${displayBaseUrl(text)})`;
  }
  // The URL parser reads `host:` as the scheme's default port: a port left out by mistake sent the
  // token to port 80 or 443 of that host.
  if (/^[a-z][a-z\d+.-]*:\/\/[^/?#]*:(?:[/?#]|$)/i.test(text)) {
    return `the service URL "${displayBaseUrl(text)}" has a ":" but no port`;
  }
  // Requests would carry the query (a signature, a key: shown by -v and `config list`) to every path.
  if (url.search || url.hash || /[?#]/.test(text)) {
    return `the service URL must not hold a query (?…) or a fragment (#…) (${url.origin}${url.pathname})`;
  }
  return undefined;
}
