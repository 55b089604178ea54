/**
 * A job named by where an acceptance points rather than by its body: RFC 9110 has a 202's `Location`
 * point at a status monitor, and a 201's at what it created. The interface shows neither, so a header
 * counts only when it points at a job of this service as vredact would ask for it; anything else is
 * ignored, never an error, as a header vredact does not know would be.
 */
import { jobIdProblem } from './identifiers.js';
import type { Scrub } from './scrub.js';
import { type Headers, headerValue } from './transport.js';

/** Looked at in this order; the first naming a job wins. */
const LOCATION_HEADERS = ['location', 'content-location'] as const;

// C0 controls and DEL, left in the value once the field's own surrounding whitespace is trimmed.
const INNER_CONTROL = /[\u0000-\u001f\u007f]/;

/** `{id}`, `{id}/content`, either with one trailing slash, below the jobs path. */
const JOB_SEGMENT = /^([^/]+)(?:\/content)?\/?$/;

/**
 * The job id a `Location` (or `Content-Location`) names: the header, resolved against `requestUrl`,
 * has `jobsUrl`'s origin and its path is `jobsUrl`'s (the configured base path + `/api/jobs`) followed
 * by `/{id}` or `/{id}/content`, query and fragment aside. The id is percent-decoded once, scrubbed,
 * and must pass the rule every job id does (jobIdProblem); undefined otherwise.
 */
export function jobIdOfLocation(
  location: string,
  requestUrl: URL,
  jobsUrl: URL,
  scrub: Scrub,
): string | undefined {
  const value = location.trim();
  // The URL parser drops tabs and line breaks inside a value without a word: `jobs/ab<TAB>c` would
  // name the job `abc`, another than the header's.
  if (value === '' || INNER_CONTROL.test(value)) return undefined;
  let target: URL;
  try {
    target = new URL(value, requestUrl);
  } catch {
    return undefined;
  }
  const prefix = `${jobsUrl.pathname}/`;
  if (target.origin !== jobsUrl.origin || !target.pathname.startsWith(prefix)) return undefined;
  const segment = JOB_SEGMENT.exec(target.pathname.slice(prefix.length))?.[1];
  if (segment === undefined) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // `%E0%A4%A` or a lone `%`: no id can be read from it.
    return undefined;
  }
  const id = scrub(decoded);
  return jobIdProblem(id) === undefined ? id : undefined;
}

/** The job the answer's `Location`, else its `Content-Location`, names (jobIdOfLocation). */
export function jobIdOfLocationHeaders(
  headers: Headers,
  requestUrl: URL,
  jobsUrl: URL,
  scrub: Scrub,
): string | undefined {
  for (const name of LOCATION_HEADERS) {
    const id = jobIdOfLocation(headerValue(headers, name), requestUrl, jobsUrl, scrub);
    if (id !== undefined) return id;
  }
  return undefined;
}
