/**
 * A job's first look: the request that tells whether a job id an upload of this run was answered with
 * names a job of the service. A wrong base URL may answer any POST with `{"data":{"id":…}}`, naming
 * jobs that never existed; its answer to the look counts toward the batch's stop for a host that is
 * not the service (wrong-service.ts). The collect stage's first poll is this look; with `--no-wait`,
 * which polls nothing, the run still makes it until the service has confirmed one of its jobs
 * (JobConfirmation).
 */
import { NotAListError } from '../api/json-reader.js';
import type { JobContentItem } from '../api/schemas.js';
import { firstLookPointsAtSetup, setupAnswerWords } from '../api/upload-fate.js';
import { type Engine, isStopping, messageOf, requestSignals } from './engine.js';
import type { CollectWork } from './work.js';

/**
 * A look at a job: one request to the service among the few at once, through the token gate. A
 * content that parsed is an answer only the service gives (service-heard.ts). Waiting for its turn or
 * to be tried again when the batch stops, it is given up (NotSentError): the job stays pending.
 */
export async function lookAtJob(engine: Engine, jobId: string): Promise<JobContentItem[]> {
  const content = await engine.request(() =>
    engine.gate.run(() => engine.client.jobContent(jobId, requestSignals(engine)), engine.abort),
  );
  engine.serviceHeard.hear();
  return content;
}

/**
 * The first look at a job of this run, counted toward the stop: seen, it is the service's answer and
 * starts the count again; not found, it points at the setup; anything else (the network, a 5xx)
 * leaves the count as it is. Rejects with the look's failure, for the caller to settle the file.
 */
export async function firstLook(engine: Engine, jobId: string): Promise<JobContentItem[]> {
  let content: JobContentItem[];
  try {
    content = await lookAtJob(engine, jobId);
  } catch (error) {
    if (!isStopping(engine, error) && firstLookPointsAtSetup(error)) {
      engine.wrongService.foreign(
        error instanceof NotAListError
          ? 'a job id whose job answered with no list of its files'
          : `a job id whose job answered ${setupAnswerWords(404)}`,
      );
    }
    throw error;
  }
  engine.wrongService.recognised();
  return content;
}

/**
 * Looks that told nothing (no answer, a 5xx) before the run stops looking: a service whose job look keeps
 * failing (with the client's retries, seconds each) would otherwise hold every upload behind one,
 * and `--no-wait` would crawl. The uploads themselves were answered as the service answers.
 */
const MAX_INCONCLUSIVE_LOOKS = 3;

/**
 * With `--no-wait` no job is polled, so a host naming a job for every upload would be sent every
 * file. The run looks at its jobs, one look at a time, until the service has confirmed one; after
 * that, no more. Each upload's slot is held until its job has been looked at (or another has been
 * confirmed), so at `-c C` at most C + 2 files reach such a host, as they do when the run waits, and
 * a run against the service makes one request more than before.
 */
export class JobConfirmation {
  #confirmed = false;
  #inconclusive = 0;
  #turn: Promise<unknown> = Promise.resolve();

  /** Whether the service has shown a job of this run. */
  get confirmed(): boolean {
    return this.#confirmed;
  }

  /**
   * Looks at the job this run submitted unless one has been confirmed (or the batch is stopping);
   * never rejects. Not found at that look, the job carries the look's failure: it stays submitted
   * (a later run collects it, or is told again that it does not exist), and its file says so.
   */
  async confirm(engine: Engine, job: CollectWork): Promise<CollectWork> {
    if (this.#confirmed || this.#inconclusive >= MAX_INCONCLUSIVE_LOOKS) return job;
    const look = this.#turn.then(() => this.#lookUnlessConfirmed(engine, job));
    this.#turn = look;
    return look;
  }

  async #lookUnlessConfirmed(engine: Engine, job: CollectWork): Promise<CollectWork> {
    if (this.#confirmed || this.#inconclusive >= MAX_INCONCLUSIVE_LOOKS || engine.stop.aborted) return job;
    try {
      await firstLook(engine, job.jobId);
      this.#confirmed = true;
      return job;
    } catch (error) {
      if (isStopping(engine, error)) return job;
      if (firstLookPointsAtSetup(error)) return { ...job, notFoundAtFirstLook: messageOf(error) };
      this.#inconclusive++;
      return job;
    }
  }
}
