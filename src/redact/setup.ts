/** Setting up a real run: the engine the stages share, the sweep of partial files. */
import { setMaxListeners } from 'node:events';
import type { Context } from '../context.js';
import { OutputFolder } from '../fs/containment.js';
import type { BatchDeps } from './batch.js';
import { AcceptedJobs } from './accepted-jobs.js';
import { type Engine, type Interrupt, isStopping, type RedactClient } from './engine.js';
import { OutputSpace } from '../fs/free-space.js';
import { JobConfirmation } from './first-look.js';
import { RESULT_ROOM } from './free-space.js';
import { GateClosedError, TokenGate } from './gate.js';
import type { RedactOptions, Shard } from './options.js';
import type { HeldLock } from './lock.js';
import type { MinAgeRule } from './min-age.js';
import type { Halt } from './halt.js';
import type { Recorder } from './record.js';
import { lookAgainMs, ServiceHeard } from './service-heard.js';
import { FirstContact } from './first-contact.js';
import { requestTurns } from './request-turns.js';
import { sweepPartials } from './sweep.js';
import { answererOf, WrongServiceStreak } from './wrong-service.js';

export interface EngineParts {
  client: RedactClient;
  outDir: string;
  recorder: Recorder;
  halt: Halt;
  fields: Readonly<Record<string, string>>;
  options: RedactOptions;
  interrupt: Interrupt;
  deps: BatchDeps;
  /** The run's lock: checked before each upload and output; once lost, the batch stops and aborts. */
  lock: Pick<HeldLock, 'confirm' | 'lost'>;
  /** `--min-age`, from the run's start; undefined when off. */
  minAge: MinAgeRule | undefined;
}

export async function buildEngine(ctx: Context, parts: EngineParts): Promise<Engine> {
  const { options, interrupt, halt } = parts;
  const refused = new AbortController();
  let tokenRefused: unknown;
  // The first refusal halts everything before another request can start (see TokenGate).
  const gate = new TokenGate((error) => {
    tokenRefused = error;
    refused.abort(new GateClosedError(error));
  });
  const { lock } = parts;
  const stop = AbortSignal.any([interrupt.stop, interrupt.abort, refused.signal, halt.signal, lock.lost]);
  // A run whose lock is another's must not finish even the uploads in flight: that run sends them too.
  const abort = AbortSignal.any([interrupt.abort, refused.signal, lock.lost]);
  // Every request and every wait listens to these: thousands of files are not a leak.
  setMaxListeners(0, stop, abort, refused.signal, halt.signal, interrupt.stop, interrupt.abort, lock.lost);
  // A request still waiting for its turn when the batch stops is given up, unsent (request-turns.ts).
  const requests = await requestTurns(Math.max(4, ctx.settings.concurrency), stop);
  const engine: Engine = {
    client: parts.client,
    recorder: parts.recorder,
    outDir: parts.outDir,
    outputFolder: new OutputFolder(parts.outDir),
    gate,
    clock: ctx.clock,
    log: ctx.log,
    fields: parts.fields,
    limits: { maxSize: options.maxSize, maxDurationSec: options.maxDurationSec },
    tolerance: options.durationTolerance,
    minAge: parts.minAge,
    space: new OutputSpace(RESULT_ROOM),
    wait: options.wait,
    waitTimeoutMs: options.waitTimeoutMs,
    stop,
    abort,
    halt,
    wrongService: new WrongServiceStreak(answererOf(ctx.settings.baseUrl), (error) => halt.stop(error)),
    jobConfirmation: new JobConfirmation(),
    serviceHeard: new ServiceHeard(lookAgainMs(ctx.env)),
    firstContact: new FirstContact(),
    request: requests,
    tokenRefused: () => tokenRefused,
    confirmLock: () => lock.confirm(),
    beforeUpload: parts.deps.beforeUpload,
    // Reads only, whose result a stop discards: they end at the first interrupt, as the waits do.
    acceptedJobs: new AcceptedJobs({
      clock: ctx.clock,
      stop,
      debug: (message) => ctx.log.debug(message),
      warn: (message) => ctx.log.warn(message),
      listJobs: (makeSink) => gate.run(() => parts.client.eachJob(makeSink, stop), stop),
      jobContent: (jobId) =>
        requests(() => gate.run(() => parts.client.jobContent(jobId, { signal: stop }), stop)),
      isStop: (error) => stop.aborted || isStopping(engine, error),
      unsettled: () => parts.recorder.unsettled,
    }),
  };
  // The look for uploads whose answer was lost ends once they are all the run has left.
  parts.recorder.onCounted = () => engine.acceptedJobs.settled();
  return engine;
}

/**
 * Removes the temporary files of dead runs beside the outputs. A shard removes only its own (marked
 * with the shard, see markTemporaryNamesAsShard): another shard's may belong to a live run on
 * another host, whose writers a pid cannot tell from dead ones.
 */
export async function sweepOutputs(
  ctx: Context,
  outDir: string,
  outputFolders: Iterable<string>,
  shard: Shard | undefined,
  stop?: AbortSignal,
): Promise<void> {
  const dirs = new Set<string>([outDir, ...outputFolders]);
  const swept = await sweepPartials(dirs, outDir, shard, stop);
  if (swept > 0) ctx.log.info(`removed ${swept} partial file(s) left by an earlier run`);
}
