/**
 * What every stage shares: the client, the recorder, the token gate, the signals and the limits.
 */
import type { ApiClient, RequestSignals } from '../api/client.js';
import { isTokenRefused, NotSentError, ThrottleGivenUpError } from '../api/errors.js';
import type { Clock } from '../clock.js';
import type { OutputFolder } from '../fs/containment.js';
import { LocalFsError } from '../fs/errors.js';
import type { Logger } from '../output/logger.js';
import { NoRoomOnDisk, type OutputSpace } from '../fs/free-space.js';
import { LockLostError } from './lock-lost.js';
import { GateClosedError, type TokenGate } from './gate.js';
import type { MinAgeRule } from './min-age.js';
import type { DurationTolerance } from './options.js';
import type { ProbeLimits } from './probe.js';
import type { AcceptedJobs } from './accepted-jobs.js';
import type { JobConfirmation } from './first-look.js';
import type { Halt } from './halt.js';
import type { Recorder } from './record.js';
import type { RequestTurns } from './request-turns.js';
import type { FirstContact } from './first-contact.js';
import type { ServiceHeard } from './service-heard.js';
import { WrongServiceError, type WrongServiceStreak } from './wrong-service.js';

/**
 * The part of the service client the engine uses (a fake in tests). A job's result is fetched in two
 * steps (`downloadUrl`, then `downloadSigned`) so that a 401/403 from the signed URL's host (an expired
 * URL) is not taken for a refused token.
 */
export type RedactClient = Pick<
  ApiClient,
  'redact' | 'eachJob' | 'jobContent' | 'downloadUrl' | 'downloadSigned'
> &
  Partial<Pick<ApiClient, 'rideOutOutages' | 'baseUrlSource'>>;

/**
 * Ctrl-C, as signals: `stop` (first interrupt) starts nothing new and lets what is in flight finish;
 * `abort` (second interrupt) aborts what is in flight.
 */
export type { Interrupt } from '../interrupt.js';

export interface Engine {
  client: RedactClient;
  recorder: Recorder;
  gate: TokenGate;
  /** The output folder: every output is written below it, never through a link that leads out. */
  outDir: string;
  /** The output folder's checked sub-folders (each checked once per run). */
  outputFolder: OutputFolder;
  clock: Clock;
  log: Logger;
  /** The multipart fields of the target voice. */
  fields: Readonly<Record<string, string>>;
  limits: ProbeLimits;
  tolerance: DurationTolerance;
  /** `--min-age`, from the run's start: a file modified too recently is left for a later run. */
  minAge?: MinAgeRule | undefined;
  /** The room claimed on the output's file system by the results on their way (fs/free-space.ts). */
  space: OutputSpace;
  wait: boolean;
  waitTimeoutMs: number;
  /**
   * Aborted when nothing new may start: an interrupt, a refused token, a halt (full disk, lock lost,
   * uploads answered by something that is not the service).
   */
  stop: AbortSignal;
  /** Aborted when what is in flight must end: a second interrupt, a refused token, the lock lost. */
  abort: AbortSignal;
  /**
   * Resolves while the run's lock is its own; awaited before each upload and each output published
   * (at once unless the lock was last checked a while ago: src/fs/lock-fence.ts). Rejects once it is not.
   */
  confirmLock: () => Promise<void>;
  halt: Halt;
  /** Uploads answered in a row by something that is not the service: at a few, the batch halts. */
  wrongService: WrongServiceStreak;
  /** Whether the service has been heard: until then a 404 of an earlier run's job may be the base URL's. */
  serviceHeard: ServiceHeard;
  /** Whether a run's first dropped upload is the whole batch's: one look at the service tells. */
  firstContact: FirstContact;
  /** With --no-wait: the first looks at this run's jobs, until the service has confirmed one. */
  jobConfirmation: JobConfirmation;
  /**
   * Runs one request to the service (polls, links, result downloads, listings), at most a few at
   * once; one still waiting for its turn when `stop` comes is given up (NotSentError: request-turns.ts).
   */
  request: RequestTurns;
  /** Looks for the jobs of uploads the service accepted without naming them, in shared rounds. */
  acceptedJobs: AcceptedJobs;
  /** Set when the service refused the token. */
  tokenRefused: () => unknown;
  /** Called just before an upload (tests replace the input there). */
  beforeUpload?: ((path: string) => Promise<void>) | undefined;
}

export function isAbort(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error.name === 'AbortError' || (error as { code?: string }).code === 'ABORT_ERR')
  );
}

/** An error that means the batch is stopping, not that this file failed. */
export function isStopping(engine: Engine, error: unknown): boolean {
  return (
    isTokenRefused(error) ||
    error instanceof GateClosedError ||
    error instanceof NotSentError ||
    isAbort(error) ||
    engine.abort.aborted
  );
}

/**
 * How a batch's request to the service listens to the batch: a second interrupt (or a refused token,
 * the lock lost) aborts it; a stop gives it up only while it waits, at the gate or between attempts,
 * so that the first interrupt tries nothing again and what is in flight finishes.
 */
export function requestSignals(engine: Engine): RequestSignals {
  return { signal: engine.abort, stopWaiting: engine.stop };
}

export function stoppedReason(engine: Engine): string {
  if (engine.tokenRefused()) return 'not finished: the service refused the token';
  if (engine.halt.reason instanceof LockLostError)
    return 'not finished: the batch stopped: another run took over the lock';
  if (engine.halt.reason instanceof NoRoomOnDisk)
    return 'not finished: the batch stopped: not enough free space for the results';
  if (engine.halt.reason instanceof WrongServiceError)
    return `not finished: the batch stopped: ${engine.halt.reason.stopWords}`;
  if (engine.halt.reason instanceof ThrottleGivenUpError)
    return `not finished: the batch stopped: ${engine.halt.reason.reason}`;
  if (engine.halt.reason) {
    return engine.halt.reason instanceof LocalFsError
      ? 'not finished: the batch stopped on a local file-system failure'
      : 'not finished: the batch stopped on a failure every upload would meet';
  }
  return 'not finished: interrupted';
}

export { messageOf } from '../errors.js';
