/**
 * The one rule for "may this 404 of an earlier run's job mean the job is gone?": only once this run
 * has heard the service. A base URL that answers 404 to everything (a wrong URL, a proxy with no such
 * path, the API under another prefix) makes every earlier job look gone; taken so, each file would be
 * sent to it and its `submitted` line replaced, so that its real job at the real service would be
 * forgotten and the file redacted twice once the URL is mended.
 *
 * Heard means an answer only the service gives: a job listing that parsed as the interface's, a job's
 * content that parsed, an upload answered with its result. When nothing has been heard by the time a
 * job's second 404 comes, the job listing is looked at once for the whole run (one shared look, not
 * one per file), and its answer is judged as find-accepted.ts judges one (listingPointsAtSetup).
 */
import { type Engine, isStopping, messageOf } from './engine.js';
import { listingAnswerWords, listingPointsAtSetup, WrongServiceError } from './wrong-service.js';

/**
 * What a 404 of an earlier run's job may mean: `gone` (the service has been heard), `not-service`
 * (the base URL's job listing is not the service's: the batch has been stopped), `untold` (the
 * listing failed in a way that says nothing: a network failure, a 5xx, a throttle; or the batch is
 * stopping), with its failure in a few words.
 */
export type GoneVerdict = { kind: 'gone' } | { kind: 'not-service' } | { kind: 'untold'; why: string };

export class ServiceHeard {
  #heard = false;
  /** The run's one look at the job listing, once a 404 needed it. */
  #look: Promise<GoneVerdict> | undefined;

  /** Whether an answer only the service gives has come this run. */
  get heard(): boolean {
    return this.#heard;
  }

  /** An answer only the service gives has come (a job's content parsed, an upload's result). */
  hear(): void {
    this.#heard = true;
  }

  /**
   * Whether a job of an earlier run, answered 404 GONE_LOOKS times in a row, may be taken for gone.
   * Never rejects. When the listing is not the service's, the batch is stopped here, as a wrong
   * service stops it.
   */
  mayBeGone(engine: Engine): Promise<GoneVerdict> {
    if (this.#heard || engine.acceptedJobs.listed) return Promise.resolve({ kind: 'gone' });
    this.#look ??= this.#lookAtListing(engine);
    return this.#look;
  }

  async #lookAtListing(engine: Engine): Promise<GoneVerdict> {
    if (engine.stop.aborted) return { kind: 'untold', why: 'the batch was stopping' };
    try {
      // Only whether it parses matters: no job is kept (a listing of a million costs nothing here).
      await engine.request(() =>
        engine.gate.run(() => engine.client.eachJob(() => ({ add() {} }), engine.stop), engine.abort),
      );
    } catch (error) {
      if (!isStopping(engine, error) && listingPointsAtSetup(error)) {
        engine.halt.stop(
          WrongServiceError.goneAtNonService(listingAnswerWords(error), engine.wrongService.where),
        );
        return { kind: 'not-service' };
      }
      return { kind: 'untold', why: messageOf(error) };
    }
    this.#heard = true;
    return { kind: 'gone' };
  }
}
