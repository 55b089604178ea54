/**
 * The one rule for "may the service have accepted this upload?", used by the client's retry decision
 * (an upload is sent again only when the service cannot have taken it) and by the engine (an upload
 * whose fate is unknown is looked for among the service's jobs before it is sent again).
 */
import {
  ApiError,
  ConnectionError,
  ConnectTimeoutError,
  InvalidResponseError,
  TimeoutError,
} from './errors.js';
import { RetryableStatusError } from './retry.js';

/** Statuses after which the service cannot have accepted the upload: sending again is safe. */
export const NOT_ACCEPTED_STATUSES = new Set([429, 503]);
/** Statuses from a gateway or a failing service that may have taken the upload before failing. */
const MAYBE_ACCEPTED_STATUSES = new Set([500, 502, 504]);

/** True when the upload certainly did not become a job, so sending it again cannot duplicate it. */
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
 * timed out after the request went out, a gateway failed, or the answer was unreadable.
 */
export function uploadMayHaveBeenAccepted(error: unknown): boolean {
  if (error instanceof ConnectionError) return !error.refused;
  if (error instanceof ConnectTimeoutError) return false;
  if (error instanceof TimeoutError || error instanceof InvalidResponseError) return true;
  return error instanceof ApiError && error.status !== undefined && MAYBE_ACCEPTED_STATUSES.has(error.status);
}
