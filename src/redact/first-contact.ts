/**
 * A run's first dropped upload. Before anything at the base URL has answered in HTTP, an upload whose
 * connection was closed or reset with no answer (DroppedBeforeHeardError) is either a port that is
 * not the service (an `http://` URL on a TLS port) or the network blinking at a cron's first upload.
 * One look at the job listing for the whole run tells which (service-heard.ts's shared look): answered
 * in HTTP, the base URL is reached, and each such drop is its file's own lost answer, whose job is
 * looked for (find-accepted.ts); a listing that points at the setup stops the batch as a wrong service
 * does; no HTTP answer to it either, and the drop is the whole batch's, as it was before the look.
 * Uploads not yet sent wait for the look: a port that is not the service gets no more recordings.
 */
import { DroppedBeforeHeardError } from '../api/errors.js';
import type { Engine } from './engine.js';
import type { ListingVerdict } from './service-heard.js';
import { WrongServiceError } from './wrong-service.js';

export class FirstContact {
  /** The run's one look, once a drop needed it. */
  #look: Promise<ListingVerdict> | undefined;
  #settled = false;
  /** Whether the look said nothing because the batch was stopping meanwhile. */
  #cutByStop = false;

  /** Resolves at once, or once the run's look under way has settled: an upload waits for it. */
  settled(): Promise<void> {
    if (this.#look === undefined || this.#settled) return Promise.resolve();
    return this.#look.then(() => undefined);
  }

  /**
   * What a failed upload's `error` is to the batch: itself, or, for a drop before anything answered
   * in HTTP whose look found the base URL answering, the drop as that file's own failure. Never
   * rejects; a listing that is not the service's stops the batch here.
   */
  async judge(engine: Engine, error: unknown): Promise<unknown> {
    if (!(error instanceof DroppedBeforeHeardError)) return error;
    if (this.#look === undefined) {
      engine.log.debug(
        `${error.dropped.message}, before anything at the base URL answered in HTTP: looking at the job listing once for the run`,
      );
      this.#look = engine.serviceHeard.look(engine).then((verdict) => {
        this.#settled = true;
        this.#cutByStop = verdict.kind === 'untold' && engine.stop.aborted;
        return verdict;
      });
    }
    const verdict = await this.#look;
    // A look cut short by a stop (Ctrl-C, a refused token) says nothing of the base URL: the drop is
    // this file's lost answer, whose job the next run looks for, not a port that is not the service.
    if (this.#cutByStop) return error.dropped;
    if (verdict.kind === 'service' || (verdict.kind === 'untold' && verdict.answered)) return error.dropped;
    if (verdict.kind === 'not-service') {
      engine.halt.stop(WrongServiceError.droppedAtNonService(verdict.answer, engine.wrongService.where));
      return error.dropped;
    }
    return error;
  }
}
