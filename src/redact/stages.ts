/**
 * The stages, joined by bounded queues: triage (decide from the journal) → local checks → uploads →
 * publish (flush and rename a synchronous result) or jobs. Each queue holds a fixed number of files,
 * so memory does not grow with the batch; the checks run ahead of the uploads in their own pool, and
 * outputs are published and jobs waited for without holding upload slots. A job of an earlier run that
 * the service no longer has is sent again by the worker that met it, in the same slots (send-again.ts).
 */
import { DecidingOrder } from './deciding-order.js';
import { type Engine, messageOf } from './engine.js';
import type { PlanEntries } from './plan.js';
import type { Pause } from './test-pause.js';
import { BoundedQueue, forEachConcurrently } from './queue.js';
import { HeldRows } from './held-rows.js';
import { type PublishWork, publishOne } from './publish.js';
import { checkToSend, collectJob, sendAgain } from './send-again.js';
import { sendOne } from './send.js';
import { type TriageOptions, triage } from './triage.js';
import { settleUnvouched, UnvouchedOutputs } from './unvouched.js';
import type { AcceptedWork, CheckedWork, CollectWork, SendWork, Work } from './work.js';

/** Inputs looked up in the journal at once (each costs a stat or two). */
const TRIAGE_WORKERS = 16;
/** Jobs waited for at once; more wait their turn (their --wait-timeout starts when they get one). */
const JOB_WAITERS = 256;

export function probeWorkers(concurrency: number): number {
  return Math.min(8, Math.max(2, concurrency));
}

async function closing<T>(queue: BoundedQueue<T>, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } finally {
    queue.close();
  }
}

/**
 * Runs every planned input through the stages; resolves when each has an outcome, or, after a first
 * interrupt or a stop of the batch (`engine.stop`), when each input decided by then has one (see
 * deciding-order.ts). A
 * second (`deciding.end`) ends the passes over inputs held back until the end (held-rows.ts) too.
 */
export async function runStages(
  engine: Engine,
  entries: PlanEntries,
  triageOptions: TriageOptions,
  concurrency: number,
  deciding: { end: AbortSignal; pause: Pause },
): Promise<void> {
  const { recorder } = engine;
  const { default: pLimit } = await import('p-limit');
  // The checks and uploads of the stages, and of files sent again for a gone job (send-again.ts).
  const checkSlots = pLimit(probeWorkers(concurrency));
  const uploadSlots = pLimit(concurrency);
  const decided = new BoundedQueue<Work>(256);
  const toCheck = new BoundedQueue<SendWork>(256);
  const checked = new BoundedQueue<CheckedWork>(Math.max(4, concurrency * 2));
  const toPublish = new BoundedQueue<PublishWork>(Math.max(4, concurrency * 2));
  const toCollect = new BoundedQueue<CollectWork | AcceptedWork>(64);
  let collectProducers = 2;
  const producerDone = () => {
    if (--collectProducers === 0) toCollect.close();
  };

  /** A job found for an interrupted upload is journaled `submitted` before it is waited for. */
  const journalFound = async (work: CollectWork): Promise<boolean> => {
    engine.log.debug(
      `${work.entry.display}: its interrupted upload had become job ${work.jobId}; collecting it`,
    );
    try {
      await recorder.submitted(work.entry, work.identity, work, true);
      return true;
    } catch (error) {
      recorder.failedUnrecorded(
        work.entry,
        `job ${work.jobId} was found for it, but the journal could not be written: ${messageOf(error)}`,
      );
      return false;
    }
  };

  /**
   * The plan's rows of jobs met while every waiter was busy and the queue to them full: they are
   * triaged again and waited for once every input has been decided, so that no upload of a new file
   * waits behind jobs that may take hours (a bit per input, not the job held). `last`: that second
   * pass, in which a found job is not journaled again.
   */
  const unvouched = new UnvouchedOutputs();
  const later = new HeldRows();
  const dispatch = async (work: Work, last: boolean) => {
    if (work.kind === 'settled') return;
    if (work.kind === 'skipped' && work.unvouched && !last) unvouched.defer(work.entry);
    else if (work.kind === 'skipped') recorder.skipped(work.entry, work.reason, work.tooRecent, work.sameAs);
    else if (work.kind === 'rejected') await recorder.rejected(work.entry, work.reason);
    else if (work.kind === 'send') await toCheck.push(work);
    else if (work.kind === 'collect') {
      if (work.reconciled && !last && !(await journalFound(work))) return;
      if (!last && work.entry.row !== undefined && toCollect.size >= toCollect.capacity) {
        later.hold(work.entry.row);
        return;
      }
      await toCollect.push(work);
    }
  };
  const route = async () => {
    for await (const work of decided) await dispatch(work, false);
    // Tests only: held until a second interrupt, which ends the settling (see test-pause.ts).
    if (unvouched.size > 0) await deciding.pause('settle');
    await settleUnvouched(unvouched, entries, triageOptions.journal, recorder, deciding.end);
    if (later.size === 0) return;
    engine.log.debug(`waiting for ${later.size} more job(s) now that every input has been decided`);
    for await (const entry of later.entries(entries, deciding.end))
      await dispatch(await triage(entry, triageOptions), true);
  };
  await Promise.all([
    closing(decided, () =>
      forEachConcurrently(
        // Ends at a stop too (a refused token, a full disk, a host that is not the service): every input
        // decided after it was only reported `pending … (not sent)`, each with a stat and a journal look-up.
        new DecidingOrder(entries, engine.stop, deciding.pause),
        TRIAGE_WORKERS,
        async (entry) => decided.push(await triage(entry, triageOptions)),
      ),
    ),
    route().finally(() => {
      toCheck.close();
      producerDone();
    }),
    closing(checked, () =>
      forEachConcurrently(toCheck, probeWorkers(concurrency), async (work) => {
        const journaled = await checkSlots(() => checkToSend(engine, work));
        if (journaled) await checked.push(journaled);
      }),
    ),
    closing(toPublish, () =>
      forEachConcurrently(checked, concurrency, async (work) => {
        const next = await uploadSlots(() => sendOne(engine, work));
        if (next?.kind === 'publish') await toPublish.push(next);
        // With --no-wait, the slot is held until the run's jobs are known to be the service's.
        else if (next?.kind === 'collect' && !engine.wait)
          await toCollect.push(await engine.jobConfirmation.confirm(engine, next));
        else if (next) await toCollect.push(next);
      }),
    ).finally(producerDone),
    // Outside the upload slots: the next upload starts while an output is flushed and renamed.
    forEachConcurrently(toPublish, concurrency, (work) =>
      publishOne(engine, work).finally(() => work.releaseSpace?.()),
    ),
    forEachConcurrently(toCollect, JOB_WAITERS, async (job) => {
      const gone = await collectJob(engine, job);
      if (gone && job.kind === 'collect')
        await sendAgain(engine, job, gone, { check: checkSlots, upload: uploadSlots });
    }),
  ]);
}
