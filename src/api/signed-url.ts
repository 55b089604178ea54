/**
 * Signed download URLs. The service may give one relative to its own URL (`/object/sign/…`, as some
 * storage services do): it is resolved there. A signed URL may answer with a redirect: object stores
 * and CDNs send a file's GET on to where the bytes are. It is followed, as curl -L or a browser
 * would, still without credentials (the client's other requests never follow one: the token stays
 * with the configured service).
 */
import type { Dispatcher } from 'undici';
import { displayText, truncate } from '../output/sanitize.js';
import { linkHost } from './answer-hints.js';
import { InvalidResponseError } from './errors.js';
import { closeBody, headerValue } from './transport.js';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Hops followed for one file before it fails: a loop ends here rather than never. */
export const MAX_REDIRECTS = 10;

/** Why vredact would not fetch `url`, or undefined when it would. */
export function signedUrlProblem(url: URL): string | undefined {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `not http(s): ${url.protocol}`;
  return undefined;
}

/** The URL a download-URL answer gives, resolved against the service URL `base`. */
export function resolveSignedUrl(text: string, base: URL, what: string): URL {
  const url = URL.parse(text, base.href);
  if (!url) {
    // Up to its query: were it a URL, that would be its credential.
    const shown = truncate(displayText(text.split('?')[0] ?? ''), 80);
    throw new InvalidResponseError(`${what}: the service gave a download URL that is not a URL: "${shown}"`);
  }
  return url;
}

/** Where a redirect answer points, or undefined when it is not one (a 3xx with no Location fails as its status). */
function redirectTarget(response: Dispatcher.ResponseData, from: URL): URL | undefined {
  if (!REDIRECT_STATUSES.has(response.statusCode)) return undefined;
  const location = headerValue(response.headers, 'location');
  return (location && URL.parse(location, from.href)) || undefined;
}

/**
 * GETs `url` through `get` (which sends no credentials), following redirects; returns the first
 * answer that is not one, and the URL that gave it. A redirect that cannot be followed is the
 * answering host's failure, named as such (never by its Location: that holds a signed query too).
 */
export async function getFollowingRedirects(
  url: URL,
  what: string,
  get: (url: URL) => Promise<Dispatcher.ResponseData>,
): Promise<{ response: Dispatcher.ResponseData; url: URL }> {
  let at = url;
  for (let hops = 0; ; hops++) {
    const response = await get(at);
    const next = redirectTarget(response, at);
    if (!next) return { response, url: at };
    closeBody(response.body);
    const fault = (problem: string) => {
      const host = linkHost(at, url);
      return new InvalidResponseError(
        `${what}: ${host.name} ${problem}`,
        undefined,
        undefined,
        undefined,
        host.hint,
      );
    };
    if (hops >= MAX_REDIRECTS) throw fault(`redirected too many times (more than ${MAX_REDIRECTS})`);
    const problem = signedUrlProblem(next);
    if (problem) throw fault(`redirected to a URL that is ${problem}`);
    at = next;
  }
}
