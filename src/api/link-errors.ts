/** Errors of a signed link's host: the link refused, or no object behind it (yet). */
import { ApiError } from './errors.js';

/** A signed link's next step: links are short-lived, and each run asks for new ones. */
export const FRESH_LINK_HINT = 'run the same command again for a fresh link';

/**
 * The host of a signed URL refused it (401/403). Those URLs carry no credentials, so this says the
 * link expired or was tampered with, never that the token was refused: it is not an auth error.
 */
export class LinkRefusedError extends ApiError {
  override name = 'LinkRefusedError';
}
/**
 * The host of a signed URL has no object there (404) or no longer (410). Storage behind a service can
 * answer so for a while after the service lists the file (its row written before the object lands, a
 * replica or a CDN not yet filled), so a new link may find it: the batch tries again (link-tries.ts).
 */
export class LinkMissingError extends ApiError {
  override name = 'LinkMissingError';
}

/** A signed link's host's answer typed as LinkMissingError where it is one; any other error as it is. */
export function asLinkMissing(error: unknown): unknown {
  if (!(error instanceof ApiError) || (error.status !== 404 && error.status !== 410)) return error;
  return new LinkMissingError(error.message, error.status, error.serviceMessage, error.exitCode, error.hint);
}
