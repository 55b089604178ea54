/**
 * What to do about an error answer, where the request it answered tells more than its status: the
 * base URL's path for a 404 of the jobs list, the job id or file name for a job's requests, the
 * link for a signed URL. errors.ts gives every status its own hint where these give none.
 */
import { formatBytes } from '../output/format.js';
import { displayText, truncate } from '../output/sanitize.js';
import {
  type BaseUrlSource,
  baseUrlNotFoundHint,
  redirectNowhereHint,
  unexpectedAnswerHint,
} from './base-url-hints.js';
import { UNEXPECTED_ANSWER_HINT } from './errors.js';
import { FRESH_LINK_HINT } from './link-errors.js';
import { JOBS_PATH, REDACTION_PATH } from './identifiers.js';
import type { Scrub } from './scrub.js';
import type { SettingSource } from '../settings/settings.js';
import { baseUrlSetTo } from '../settings/setting-origin.js';
import { refusedTokenHint } from '../settings/token.js';
import { hostPort, type OtherHost } from './transport.js';

/**
 * What to do about any bad answer of a signed link's host: links are short-lived, so a fresh one may
 * mend it; the base URL and the token play no part in it, and only the service's operators can mend
 * the host.
 */
export const LINK_HOST_HINT = `${FRESH_LINK_HINT}; if it fails again, report it to the service's operators`;

/** The link's host chose its certificate, not the user: a private authority is the one thing to trust. */
const LINK_CERTIFICATE_HINT =
  "if that host's certificate authority is a private one, trust it with NODE_EXTRA_CA_CERTS=<its PEM file>; otherwise report it to the service's operators";

/** Who gave an answer, as an error about it names it, and what to do about one outside the interface. */
export interface Answerer {
  /** `the service`, `the download link's host files.example:443`. */
  name: string;
  hint: string;
  /** Strings never shown, even where the answer echoes them: a signed link's query is a credential. */
  secrets: readonly string[];
  /** Not the service: how its network failures name it, and what to do about them. */
  other?: OtherHost;
}

export const THE_SERVICE: Answerer = { name: 'the service', hint: UNEXPECTED_ANSWER_HINT, secrets: [] };

/** The host that answered a signed link's GET, at `at` after any redirects of `link`. */
export function linkHost(at: URL, link: URL): Answerer {
  const host = hostPort(at);
  const name =
    at.host === link.host
      ? `the download link's host ${host}`
      : `the host ${host} the download link redirected to`;
  return {
    name,
    hint: LINK_HOST_HINT,
    secrets: [...new Set([...link.searchParams.values(), ...at.searchParams.values()])],
    other: { name, hint: LINK_HOST_HINT, certificateHint: LINK_CERTIFICATE_HINT },
  };
}

/** The request an error answered. */
export interface AnsweredRequest {
  url: URL;
  /** The service's base URL, whose path prefixes every request of the service. */
  baseUrl: URL;
  /** A signed download URL, not the service's: its answers say nothing of the base URL or the token. */
  signedLink: boolean;
  /** The answer's `Location`, empty when it has none. */
  location: string;
  scrub: Scrub;
  /** Where the token sent came from, when known: what to do about its refusal depends on it. */
  tokenSource?: SettingSource | undefined;
  /** Where the base URL came from, when known: a hint to check it names where it is set. */
  baseUrlSource?: BaseUrlSource;
  /** An upload's file size: a 413 of it says whose limit it likely met. */
  uploadBytes?: number | undefined;
}

/** The largest upload the interface allows ("10 MB"), read as 10 MiB, the larger of its readings. */
export const SERVICE_UPLOAD_LIMIT_BYTES = 10 * 1024 * 1024;

/** A job's listing has one input, its id: a refusal of it, or a job not found, sends the user to the list. */
const CHECK_JOB_ID_HINT = 'check the job id: `vredact jobs list` shows the jobs of this token';

/**
 * A 413 of an upload: under the service's limit, a proxy in front of it (nginx's default is 1 MB)
 * refused the file, or the service reads "10 MB" as decimal; over it, the file is too large anywhere.
 */
function uploadTooLargeHint(bytes: number): string {
  const size = formatBytes(bytes);
  return bytes <= SERVICE_UPLOAD_LIMIT_BYTES
    ? `the service or a proxy in front of it refused the file as too large (${size}, under the service's 10 MB limit): a proxy's limit is its operators' to raise; --max-size <size> rejects larger files before they are sent`
    : `the file (${size}) is over the service's 10 MB limit: split the recording`;
}

/** What to do about `status`, or undefined for the status's own hint. */
export function answerHint(status: number, request: AnsweredRequest): string | undefined {
  // Whatever a link's host answers (a redirect not followed, a failure retried), the link is at fault.
  if (request.signedLink) return status === 429 ? undefined : LINK_HOST_HINT;
  if (status >= 300 && status <= 399) return redirectHint(request);
  if (status === 401 || status === 403) return refusedTokenHint(request.tokenSource);
  if (status === 413 && request.uploadBytes !== undefined) return uploadTooLargeHint(request.uploadBytes);
  // A server that does not implement the method asked is not the service, which implements all it lists.
  if (status === 501) return unexpectedAnswerHint(request.baseUrlSource);
  // A 408 is the way to the service timing out, whatever was asked: its status's own hint.
  if (status < 400 || status > 499 || status === 408 || status === 429) return undefined;
  if (status === 404) return notFoundHint(request);
  // Any other refusal of a link request is about the name asked for, the body's one field; of a
  // listing, about the job id, its one input (a 400 "Invalid job id"). A 405 refuses the request's
  // path and method, which the base URL decides.
  if (status === 405) return undefined;
  const inJob = requestInJob(request);
  if (inJob === '/files/download-url')
    return "check the file name against the job's files (`vredact jobs content <jobId>`); if it is listed there, report this answer to the service's operators";
  if (inJob === '/content')
    return `${CHECK_JOB_ID_HINT}; if it is listed there, report this answer to the service's operators`;
  return undefined;
}

function basePathOf(baseUrl: URL): string {
  return baseUrl.pathname.replace(/\/+$/, '');
}

/** What a request asks of a job (`/content`, `/files/download-url`), past `/api/jobs/<id>`. */
function requestInJob({ url, baseUrl }: AnsweredRequest): string {
  return url.pathname.slice(basePathOf(baseUrl).length).replace(/^\/api\/jobs\/[^/]+/, '');
}

/**
 * A 404 on the jobs list or on the upload, paths every service answers on, means the base URL is
 * wrong more often than anything else.
 */
function notFoundHint(request: AnsweredRequest): string | undefined {
  const { url, baseUrl } = request;
  const basePath = basePathOf(baseUrl);
  if (/\/api$/i.test(basePath)) {
    return `the base URL should not end in /api (requests went to ${url.pathname}): set it to ${baseUrl.origin}${basePath.slice(0, -4) || ''}`;
  }
  if (url.pathname === `${basePath}${JOBS_PATH}` || url.pathname === `${basePath}${REDACTION_PATH}`) {
    return baseUrlNotFoundHint(request.baseUrlSource, basePath);
  }
  // A job the token does not own reads as one that does not exist.
  const inJob = requestInJob(request);
  if (inJob === '/content') return CHECK_JOB_ID_HINT;
  if (inJob === '/files/download-url')
    return 'check the job id and the file name: `vredact jobs content <jobId>` lists its files';
  return undefined;
}

/** Why a redirect of the service is not followed; the same words whether it says where or not. */
const REDIRECT_NOT_FOLLOWED = 'vredact does not follow redirects of the service';

/** Longest base URL a redirect's hint names to set (a longer one is no address to type). */
const MAX_MOVED_BASE_URL = 200;

/**
 * The base URL a redirect points the service at: where its Location puts the request's own path
 * below the base path (`http://h/api/jobs` redirected to `https://h/v2/api/jobs` gives `https://h/v2`),
 * an http or https URL other than the base URL; undefined where it points elsewhere (a login page).
 */
function movedBaseUrl({ url, baseUrl, location }: AnsweredRequest): string | undefined {
  let target: URL;
  try {
    target = new URL(location.trim(), url);
  } catch {
    return undefined;
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return undefined;
  // Credentials in a URL are never repeated, nor set as a base URL.
  if (target.username || target.password) return undefined;
  const basePath = basePathOf(baseUrl);
  const below = url.pathname.slice(basePath.length);
  if (!below || !target.pathname.endsWith(below)) return undefined;
  const moved = `${target.origin}${target.pathname.slice(0, -below.length)}`;
  if (moved === `${baseUrl.origin}${basePath}` || moved.length > MAX_MOVED_BASE_URL) return undefined;
  return moved;
}

/**
 * A redirect of the API is never followed (it would carry the token, or an upload, to wherever it
 * points): the error says where it points, so that a service that moved can be set as the base URL,
 * and names that base URL where the Location keeps the request's own path (an http→https redirect,
 * a new host or path prefix). One that says nowhere (a proxy, an http→https redirect whose Location
 * was stripped) still says the base URL is not the service's address: the service answers its own
 * paths, never with a redirect.
 */
function redirectHint(request: AnsweredRequest): string {
  const { location, scrub, baseUrlSource } = request;
  if (!location) return redirectNowhereHint(baseUrlSource, REDIRECT_NOT_FOLLOWED);
  // Its user information is a password at worst, and a base URL may not hold one anyway.
  const where = truncate(displayText(scrub(location).replace(/^([^:/?#]+:\/\/)[^/?#]*@/, '$1***@')), 120);
  const moved = movedBaseUrl(request);
  if (moved !== undefined) {
    const shown = displayText(scrub(moved));
    return `it redirects to ${where}, and ${REDIRECT_NOT_FOLLOWED}: if the service moved there, set the base URL to ${shown} (${baseUrlSetTo(baseUrlSource, shown)})`;
  }
  return `it redirects to ${where}, and ${REDIRECT_NOT_FOLLOWED}: if the service moved, set the base URL to its new address (${baseUrlSetTo(baseUrlSource, '<url>')})`;
}
