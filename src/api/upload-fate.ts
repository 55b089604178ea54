/**
 * The one rule for "may the service have accepted this upload?", used by the client's retry decision
 * (an upload is sent again only when the service cannot have taken it) and by the engine (an upload
 * whose fate is unknown is looked for among the service's jobs before it is sent again); and the one
 * rule for "was this answered by something that is not the service?", by which a batch pointed at
 * the wrong host stops after a few uploads (src/redact/wrong-service.ts), with what to do on the
 * file's line.
 */
import { STATUS_CODES } from 'node:http';
import {
  ApiError,
  ConnectionError,
  ConnectTimeoutError,
  InvalidResponseError,
  isTokenRefused,
  NotFoundError,
  RateLimitError,
  TimeoutError,
} from './errors.js';
import { NotAListError } from './json-reader.js';
import { RetryableStatusError } from './retry.js';

/** Statuses after which the service cannot have accepted the upload: sending again is safe. */
export const NOT_ACCEPTED_STATUSES = new Set([429, 503]);
/** Statuses from a gateway or a failing service that may have taken the upload before failing. */
const MAYBE_ACCEPTED_STATUSES = new Set([500, 502, 504]);
/**
 * Redirects that say the resource is elsewhere and the request was not processed here (RFC 9110
 * 15.4): the upload did not become a job. Not 303 See Other, which after a POST conventionally says
 * it was processed and its result is elsewhere: that upload may have been taken.
 */
const REDIRECTED_UNPROCESSED_STATUSES = new Set([301, 302, 307, 308]);

/**
 * True when the upload certainly did not become a job, so sending it again cannot duplicate it.
 * Only what is worth sending again within the run: a redirect (301, 302, 307, 308) did not make a job
 * either, but is not retried, as it would be answered the same (see uploadMayHaveBeenAccepted).
 */
export function uploadSafeToResend(error: unknown): boolean {
  if (error instanceof ConnectionError) return error.refused;
  // No connection, so no request: undici's connect timeout ends before a byte of it is written.
  if (error instanceof ConnectTimeoutError) return true;
  const status = error instanceof ApiError ? error.status : undefined;
  return (
    (error instanceof RetryableStatusError || error instanceof ApiError) &&
    status !== undefined &&
    NOT_ACCEPTED_STATUSES.has(status)
  );
}

/**
 * True when the upload may have become a job although no answer said so: the connection dropped or
 * timed out after the request went out, a gateway failed, the answer was unreadable, or a 303 sent
 * it elsewhere for its result. A 301, 302, 307 or 308 is no such answer: the file fails, and the next
 * run sends it again without looking for a job.
 */
export function uploadMayHaveBeenAccepted(error: unknown): boolean {
  if (error instanceof ConnectionError) return !error.refused;
  if (error instanceof ConnectTimeoutError) return false;
  if (
    error instanceof ApiError &&
    error.status !== undefined &&
    REDIRECTED_UNPROCESSED_STATUSES.has(error.status)
  )
    return false;
  if (error instanceof TimeoutError || error instanceof InvalidResponseError) return true;
  return error instanceof ApiError && error.status !== undefined && MAYBE_ACCEPTED_STATUSES.has(error.status);
}

/**
 * Statuses the upload's path never answers on a service: it exists on every one (404), takes a POST
 * (405), and a server that implements no POST (501, as `python -m http.server` answers) is not one.
 */
const NOT_THE_SERVICE_STATUSES = new Set([404, 405, 501]);

/**
 * True when an upload's answer points at the setup rather than at the file: whatever the file, every
 * upload to that base URL would be answered so. A 404, 405 or 501; a redirect (never followed: it
 * would take the recording elsewhere; the service moved, or a portal or a scheme redirect stands in
 * front of it); a 2xx that is neither audio nor names a job (a single-page app's fallback page, a
 * captive portal, a wiki). Not a 401 or 403 (the token, which stops a batch at once), nor a 413 or
 * 429, nor any other answer the service gives (a 400 for one file, a 5xx for a moment).
 */
export function answerPointsAtSetup(error: unknown): error is ApiError & { status: number } {
  if (!(error instanceof ApiError) || error.status === undefined) return false;
  if (NOT_THE_SERVICE_STATUSES.has(error.status)) return true;
  return error instanceof InvalidResponseError && error.status >= 200 && error.status <= 399;
}

/**
 * True when a job an upload of this run was answered with is not found at its first look, or its look
 * is answered with no list of its files at all: a wrong base URL that answers any POST with
 * `{"data":{"id":…}}` (an envelope of JSON:API) names jobs that never existed, and one that answers
 * every request with the same `{"id":…}` (a catch-all mock) answers their looks with it too. A job
 * found once and gone later is the service's doing, not this.
 */
export function firstLookPointsAtSetup(error: unknown): boolean {
  return error instanceof NotFoundError || error instanceof NotAListError;
}

/** An answer that points at the setup, in a few words: `404 Not Found`, `200 with neither audio nor a job id`. */
export function setupAnswerWords(status: number): string {
  const text = STATUS_CODES[status];
  const words = `${status}${text ? ` ${text}` : ''}`;
  return status >= 200 && status <= 299 ? `${words} with neither audio nor a job id` : words;
}

/**
 * A file's reason, and last what to do when the answer points at the setup rather than at a moment: a
 * redirect (where to), a 4xx (the base URL), a 2xx outside the interface. A file's line has no `hint:`
 * line of its own, and every file of a batch so refused said only the status, nothing to do. A 5xx's
 * hint (more retries) is not an upload's, which is not sent again where the service may have taken it.
 */
export function withSetupHint(reason: string, error: unknown): string {
  if (!(error instanceof ApiError) || error.hint === undefined) return reason;
  const pointsAtSetup =
    answerPointsAtSetup(error) ||
    error instanceof InvalidResponseError ||
    (error.status !== undefined &&
      error.status < 500 &&
      !(error instanceof RateLimitError) &&
      !isTokenRefused(error));
  return pointsAtSetup ? `${reason}; ${error.hint}` : reason;
}
