/**
 * The one rule for "may this 404 of an earlier run's job mean the job is gone?": only once this run
 * has heard the service. A base URL that answers 404 to everything (a wrong URL, a proxy with no such
 * path, the API under another prefix) makes every earlier job look gone; taken so, each file would be
 * sent to it and its `submitted` line replaced, so that its real job at the real service would be
 * forgotten and the file redacted twice once the URL is mended.
 *
 * Heard means an answer only the service gives: a job listing that parsed as the interface's, a job's
 * content that parsed, an upload answered with its result. When nothing has been heard by the time a
 * job's second 404 comes, the job listing is looked at (one shared look, not one per file), and its
 * answer is judged as find-accepted.ts judges one (listingPointsAtSetup). The same look tells a run's
 * first dropped upload from a base URL that is not the service (first-contact.ts).
 *
 * A look that says nothing (`untold`: the network, a 5xx, a throttle) may be made again for a later
 * job, at most LISTING_LOOKS_MAX looks a run and LOOK_AGAIN_MS after the last: a moment's failure
 * would otherwise keep every later gone-looking job of the run pending, while a listing that keeps
 * failing costs a few listings, not one per job.
 */
import { ApiError } from '../api/errors.js';
import { type Engine, isStopping, messageOf } from './engine.js';
import { listingAnswerWords, listingPointsAtSetup, WrongServiceError } from './wrong-service.js';

/** Looks at the job listing a run makes at most, while they say nothing. */
export const LISTING_LOOKS_MAX = 3;
/** How long after a look that said nothing another may be made. */
export const LOOK_AGAIN_MS = 30_000;

/**
 * Tests only: a shorter LOOK_AGAIN_MS for a run of the built command, so that a test of a second look
 * does not wait half a minute. Not a setting: a user's run always waits LOOK_AGAIN_MS.
 */
const TEST_LOOK_AGAIN_ENV = 'VREDACT_TEST_LOOK_AGAIN_MS';

/** How long after a look that said nothing another may be made: LOOK_AGAIN_MS, or a test's shorter one. */
export function lookAgainMs(env: NodeJS.ProcessEnv): number {
  const asked = Number(env[TEST_LOOK_AGAIN_ENV]);
  return Number.isInteger(asked) && asked >= 50 && asked < LOOK_AGAIN_MS ? asked : LOOK_AGAIN_MS;
}

/**
 * What a look at the job listing said: `service` (a listing of the interface's, or heard before),
 * `not-service` (an answer that points at the setup: `answer`, in a few words), `untold` (a failure
 * that says nothing, with its words; `answered`: something answered it in HTTP, a 5xx, a throttle;
 * or the batch was stopping).
 */
export type ListingVerdict =
  | { kind: 'service' }
  | { kind: 'not-service'; answer: string }
  | { kind: 'untold'; why: string; answered: boolean };

/**
 * What a 404 of an earlier run's job may mean: `gone` (the service has been heard), `not-service`
 * (the base URL's job listing is not the service's: the batch has been stopped), `untold` (the
 * listing failed in a way that says nothing, or the batch is stopping), with its failure in a few words.
 */
export type GoneVerdict = { kind: 'gone' } | { kind: 'not-service' } | { kind: 'untold'; why: string };

export class ServiceHeard {
  #heard = false;
  /** The run's last look at the job listing (under way, or settled). */
  #look: Promise<ListingVerdict> | undefined;
  #looks = 0;
  /** When the last look settled saying nothing; undefined while one is under way, or none did. */
  #untoldAt: number | undefined;

  constructor(
    /** How long after a look that said nothing another may be made (a test's shorter one). */
    private readonly lookAgainMs = LOOK_AGAIN_MS,
  ) {}

  /** Whether an answer only the service gives has come this run. */
  get heard(): boolean {
    return this.#heard;
  }

  /** An answer only the service gives has come (a job's content parsed, an upload's result). */
  hear(): void {
    this.#heard = true;
  }

  /**
   * Whether the base URL's job listing is the service's: the look under way, or the last one's
   * verdict, or a new look when the last said nothing and the bounds let one more. Never rejects.
   */
  look(engine: Engine): Promise<ListingVerdict> {
    if (this.#heard || engine.acceptedJobs.listed) return Promise.resolve({ kind: 'service' });
    if (this.#look === undefined || this.#mayLookAgain(engine.clock.now())) {
      this.#looks++;
      this.#untoldAt = undefined;
      this.#look = this.#lookAtListing(engine);
    }
    return this.#look;
  }

  /**
   * Whether a job of an earlier run, answered 404 GONE_LOOKS times in a row, may be taken for gone.
   * Never rejects. When the listing is not the service's, the batch is stopped here, as a wrong
   * service stops it.
   */
  async mayBeGone(engine: Engine): Promise<GoneVerdict> {
    const verdict = await this.look(engine);
    if (verdict.kind === 'service') return { kind: 'gone' };
    if (verdict.kind === 'untold') return { kind: 'untold', why: verdict.why };
    engine.halt.stop(WrongServiceError.goneAtNonService(verdict.answer, engine.wrongService.where));
    return { kind: 'not-service' };
  }

  #mayLookAgain(now: number): boolean {
    const since = this.#untoldAt;
    return since !== undefined && this.#looks < LISTING_LOOKS_MAX && now - since >= this.lookAgainMs;
  }

  async #lookAtListing(engine: Engine): Promise<ListingVerdict> {
    if (engine.stop.aborted) return { kind: 'untold', why: 'the batch was stopping', answered: false };
    try {
      // Only whether it parses matters: no job is kept (a listing of a million costs nothing here).
      await engine.request(() =>
        engine.gate.run(() => engine.client.eachJob(() => ({ add() {} }), engine.stop), engine.abort),
      );
    } catch (error) {
      if (!isStopping(engine, error) && listingPointsAtSetup(error))
        return { kind: 'not-service', answer: listingAnswerWords(error) };
      this.#untoldAt = engine.clock.now();
      const answered = error instanceof ApiError && error.status !== undefined;
      return { kind: 'untold', why: messageOf(error), answered };
    }
    this.#heard = true;
    return { kind: 'service' };
  }
}
