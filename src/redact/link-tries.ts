/**
 * A result the job lists whose link's host answers 404 or 410 (LinkMissingError) is taken for one not
 * there yet: storage behind a service can be behind its listing for a while. The job's next poll, at
 * the poll's backoff, asks for a new link; only past a few tries does the file fail, as a broken
 * result does. Before, the first 404 failed it, and every later run sent the file again and met the
 * same lag with its new job, never converging.
 * The tries count over runs: a run that leaves the job pending after tries of its own (a `--no-wait`
 * run's one look, a waiting run ended by `--wait-timeout`) journals the count with the job
 * (`linkMisses` on its `submitted` line), so that a link that never comes fails its file after
 * LINK_TRIES tries in all, as within one run, instead of leaving it pending for good.
 */
import type { LinkMissingError } from '../api/link-errors.js';

/** GETs of a result's link (a new link each time) before its file fails, over all runs. */
export const LINK_TRIES = 3;

/** A journaled count of earlier misses as a number of tries: anything else (damage) counts none. */
export function earlierMisses(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? Math.min(value, LINK_TRIES) : 0;
}

/** What `status` and a pending file say of a job whose link had no result `misses` times so far. */
export function linkMissesNote(misses: number): string {
  return `no result at its link at ${misses} of ${LINK_TRIES} tries`;
}

/** Counts one job's tries of its result's link, from those of earlier runs (journaled). */
export class LinkTries {
  #misses: number;
  readonly #earlier: number;

  constructor(earlier = 0) {
    this.#earlier = earlierMisses(earlier);
    this.#misses = this.#earlier;
  }

  /** The tries that met no result so far, earlier runs' included. */
  get misses(): number {
    return this.#misses;
  }

  /** Whether this run met misses of its own: the count to journal when it leaves the job pending. */
  get missedHere(): boolean {
    return this.#misses > this.#earlier;
  }

  /** Counts a try that met `error`: the reason to fail the file with once the tries are spent. */
  missed(error: LinkMissingError): string | undefined {
    this.#misses++;
    if (this.#misses < LINK_TRIES) return undefined;
    const earlier = this.#earlier > 0 ? `, ${this.#earlier} of them by earlier runs` : '';
    return `${error.message} (tried ${this.#misses} times${earlier}, a new link each time)`;
  }
}
