/**
 * A result the job lists whose link's host answers 404 or 410 (LinkMissingError) is taken for one not
 * there yet: storage behind a service can be behind its listing for a while. The job's next poll, at
 * the poll's backoff, asks for a new link; only past a few tries does the file fail, as a broken
 * result does. Before, the first 404 failed it, and every later run sent the file again and met the
 * same lag with its new job, never converging.
 */
import type { LinkMissingError } from '../api/link-errors.js';

/** GETs of a result's link in a run (a new link each time) before its file fails. */
export const LINK_TRIES = 3;

/** Counts one job's tries of its result's link in this run. */
export class LinkTries {
  #misses = 0;

  /** Counts a try that met `error`: the reason to fail the file with once the tries are spent. */
  missed(error: LinkMissingError): string | undefined {
    this.#misses++;
    if (this.#misses < LINK_TRIES) return undefined;
    return `${error.message} (tried ${this.#misses} times, a new link each time)`;
  }
}
